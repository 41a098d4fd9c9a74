"""Mizan (ميزان): an Arabic-first interactive course on evaluating RAG systems.

Run with ``streamlit run app.py``. This file stays thin: the shell (settings from the URL,
styling, navigation over ``lessons/catalog.py``, sidebar, presenter view) lives in
``lessons/shared/shell.py``; each page is ``lessons/<folder>/page.py``.
"""

from lessons.shared import shell

shell.run()
