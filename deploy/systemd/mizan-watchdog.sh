#!/bin/sh
# Run by mizan-watchdog.service (every 30 s, mizan-watchdog.timer): restart an app process that
# neither answers its health check nor uses any CPU for 10 s (stopped, deadlocked). One that
# is only slow because the machine is overloaded keeps working and is left alone.
ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
healthy() { curl -fs -m 5 "http://${MIZAN_BIND:-127.0.0.1}:$1/_stcore/health" >/dev/null; }
for unit in $(systemctl list-units --plain --no-legend --state=active 'mizan-app@*' | cut -d' ' -f1); do
  port=${unit#mizan-app@}
  port=${port%.service}
  pid=$(systemctl show -p MainPID --value "$unit")
  healthy "$port" && continue
  before=$(ticks "$pid")
  sleep 10
  healthy "$port" && continue
  [ $(( $(ticks "$pid") - before )) -le 10 ] || continue
  echo "$unit: no health answer and no CPU used: restarting"
  systemctl kill -s KILL "$unit"   # Restart=always starts it again
done
