"""Pedagogy, pure Python (no Streamlit): generated exercises, the catalogue of known wrong
formulas, reading typed numbers, and the learner's progress."""
