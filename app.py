"""Mizan (ميزان): an Arabic-first interactive course on evaluating RAG systems.

Run with ``streamlit run app.py``. This file stays thin: the shell (settings from the URL,
styling, navigation over ``lessons/catalog.py``, sidebar, presenter view) lives in
``lessons/shared/shell.py``; each page is ``lessons/<folder>/page.py``.
"""

from streamlit.runtime.scriptrunner import get_script_run_ctx

from lessons.shared import shell
from live import limits


def browser_session() -> str | None:
    """The client the live classroom budgets (join attempts, wrong codes): this browser
    tab's Streamlit session (live/ itself knows nothing of Streamlit)."""
    ctx = get_script_run_ctx()
    return ctx.session_id if ctx else None


limits.client_provider = browser_session
shell.run()
