"""The UI kit every page is built from (Streamlit): prose sections and metric cards
(``layout``), the exercise view, the quiz, the ranking editor and the share panel."""
