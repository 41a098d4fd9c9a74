"""Mizan (ميزان): an Arabic-first interactive course on evaluating RAG systems.

Run with ``streamlit run app.py``. This file stays thin: the shell (settings from the URL,
styling, navigation over ``runtime/catalog.py``, sidebar, presenter view) lives in
``runtime/shell.py``; each page is ``lessons/<folder>/page.py``.
"""

from runtime import shell

shell.run()
