"""The Arabic redraw of Streamlit's own interface text: CSS strings built from strings/*.toml.

The browser side (computed ::before/::after content on real pages) is in
tests/browser/test_shell_arabic_ui.py; this checks the escaping and the variable block.
"""

from __future__ import annotations

import re

from runtime import shell
from text.i18n import strings


def test_css_string_cannot_close_the_string_or_the_style():
    text = 'a"b\\c</style><script>&\n'
    out = shell.css_string(text)
    inner = out[1:-1]
    assert out.startswith('"') and out.endswith('"')
    assert not re.search(r'[<>&"\n]', inner)
    # every escape is a 6-digit hex code point, so no terminating space is needed
    decoded = re.sub(r"\\([0-9A-F]{6})", lambda m: chr(int(m.group(1), 16)), inner)
    assert decoded == text


def test_arabic_text_is_kept_verbatim():
    assert shell.css_string("اضغط Enter للتطبيق") == '"اضغط Enter للتطبيق"'


def test_variables_cover_every_streamlit_ui_string():
    block = shell.ui_text_variables("ar")
    table = strings("streamlit_ui", "ar")
    assert table, "the [streamlit_ui] table is missing from strings/ar.toml"
    for key, value in table.items():
        assert f"--mz-ui-{key.replace('_', '-')}: {shell.css_string(value)};" in block
    assert "<" not in block


def test_rtl_css_uses_only_defined_variables():
    used = set(re.findall(r"var\(--mz-ui-([a-z-]+)\)", (shell.CSS_DIR / "rtl.css").read_text()))
    defined = {key.replace("_", "-") for key in strings("streamlit_ui", "ar")}
    assert used and used <= defined, used - defined
