"""A tiny page around ui.exercise_panel, for tests/test_exercise_panel_apptest.py
(added with MIZAN_EXTRA_PAGES="exercise=tests/apps/exercise_page.py").

Query params: ?metric=<a practice metric>&seed=<int>&kind=compute|predict. Every Attempt that
``show`` returns is appended to a list printed in the container keyed ``ex-reports``, so the
tests can see that one submission is reported exactly once.
"""

import streamlit as st

from teaching import exercises
from text.i18n import current_lang
from ui import exercise_panel

metric = st.query_params.get("metric", "precision")
seed = int(st.query_params.get("seed", "1"))
if st.query_params.get("kind") == "predict":
    ex = exercises.predict_exercise(seed, metric if metric in exercises.PREDICT_METRICS else None)
else:
    ex = exercises.generate(metric, seed, lang=current_lang())
attempt = exercise_panel.show(ex, key="t")
reports = st.session_state.setdefault("ex-reports", [])
if attempt is not None:
    reports.append(f"{attempt.status}:{attempt.mistake}")
with st.container(key="ex-reports"):
    st.text("reports=" + "|".join(reports))
st.button("rerun", key="ex-rerun")
