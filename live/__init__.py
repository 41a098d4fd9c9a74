"""Live classroom storage: sessions, questions, participants and answers in a real database.

No Streamlit here (the page is ``lessons/live/``). ``live.db`` builds the engine (SQLite file by
default, PostgreSQL when ``MIZAN_DATABASE_URL`` is set) with bounded timeouts, ``live.models``
declares the tables, ``live/migrations`` holds the Alembic history, ``live.service`` is the API
the page calls, ``live.limits`` its configurable limits, ``live.errors`` its refusals, and
``live/messages.{ar,en}.toml`` the message of every refusal.
"""
