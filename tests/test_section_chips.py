"""A lesson's section chips (under its title) follow the order in which the page draws its
sections, and each leads to a section the page has: a chip list in another order sends a
reader who scans it to the wrong place (lesson 4 listed "Try it" third while drawing it first)."""

from __future__ import annotations

import re

import pytest

from tests.apptest_helpers import open_lesson

LESSONS = ["two_stages", "recall_precision", "mrr", "faithfulness", "ndcg", "diagnose"]
CHIP = re.compile(r'<a href="#(mz-[a-z-]+)">')
ANCHOR = re.compile(r'<span id="(mz-[a-z-]+)" class="mz-anchor">')


@pytest.mark.parametrize("lesson", LESSONS)
def test_the_chips_follow_the_page(lesson):
    at = open_lesson(f"lessons/{lesson}/page.py", {"lang": "en"})
    html = [str(m.value) for m in at.markdown]
    header = next(h for h in html if 'class="mz-toc"' in h)
    chips = CHIP.findall(header)
    drawn = [a for h in html for a in ANCHOR.findall(h)]
    assert chips and set(chips) <= set(drawn), (chips, drawn)
    assert chips == [a for a in drawn if a in chips], (chips, drawn)
