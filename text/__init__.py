"""Text: languages, UI strings, lesson content files, bidi isolation and escaping.

Pure Python, no Streamlit: ``i18n`` (strings, content files, numbers, placeholders) and
``bidi`` (isolates, digits, escaping). The UI strings live in ``text/strings/<lang>.toml``.
"""
