"""The app's runtime (Streamlit): the shell behind ``app.py``, the catalogue of pages, the
URL state of each page and the learner's progress kept in the browser."""
