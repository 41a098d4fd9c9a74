"""The lab in a real Chromium: real files uploaded through the file input (good, then bad:
the good one stays in use), messages in both languages, downloads, the explain link, and the
charts inside a phone's width."""

from __future__ import annotations

import codecs
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "assets" / "examples"
MEAN = ".st-key-lab-mean [data-testid=stDataFrame]"


@pytest.fixture(scope="module")
def app_url(streamlit_server) -> str:
    return streamlit_server("app.py", **{"runner.postScriptGC": False})


def open_lab(page: Page, url: str, lang: str = "en") -> Page:
    page.goto(f"{url}/lab?lang={lang}")
    expect(page.locator(".st-key-lab-up-qrels input[type=file]")).to_be_attached(timeout=30_000)
    return page


def upload(page: Page, slot: str, name: str, data: bytes) -> None:
    page.locator(f".st-key-lab-up-{slot} input[type=file]").set_input_files(
        files=[{"name": name, "mimeType": "application/octet-stream", "buffer": data}])


def slot(page: Page, name: str):
    return page.locator(f".st-key-lab-slot-{name}")


def test_upload_good_files_then_bad_ones_keeps_the_good(page, app_url):
    open_lab(page, app_url)
    upload(page, "qrels", "qrels.trec", (EXAMPLES / "seed_qrels.trec").read_bytes())
    expect(slot(page, "qrels")).to_contain_text(re.compile(r"In use: .?qrels\.trec"))
    upload(page, "a", "vector.trec", (EXAMPLES / "seed_vector.trec").read_bytes())
    expect(page.locator(MEAN)).to_be_visible(timeout=30_000)
    expect(slot(page, "a")).to_contain_text(re.compile(r"In use: .?vector\.trec"))

    utf16 = codecs.BOM_UTF16_LE + (EXAMPLES / "seed_vector.trec").read_text().encode("utf-16-le")
    upload(page, "a", "vector-utf16.trec", utf16)
    box = slot(page, "a")
    expect(box.locator("[data-testid=stAlertContentError]")).to_contain_text("UTF-16 LE")
    expect(box).to_contain_text(re.compile(r"The file loaded before \(.?vector\.trec.?\) is still"))
    expect(page.locator(MEAN)).to_be_visible()

    upload(page, "a", "dupes.trec", b"q1 Q0 d1 1 2.0 x\nq1 Q0 d3 2 1.5 x\nq1 Q0 d1 3 1.0 x\n")
    expect(box.locator("[data-testid=stAlertContentError]")).to_contain_text(
        re.compile(r"Line 3:.*appears twice.*first on line 1"))
    upload(page, "b", "empty.trec", b"")
    expect(slot(page, "b").locator("[data-testid=stAlertContentError]")).to_contain_text(
        "The file is empty")
    expect(page.locator(MEAN)).to_be_visible()


def test_arabic_messages_for_binary_and_bad_lines(page, app_url):
    open_lab(page, app_url, "ar")
    upload(page, "qrels", "photo.png", b"\x89PNG\r\n\x1a\n" + bytes(200))
    expect(slot(page, "qrels").locator("[data-testid=stAlertContentError]")).to_contain_text(
        "هذا ليس ملفًا نصيًا")
    upload(page, "a", "run.trec", b"q1 Q0 d1 1 2.0 x\nq1 Q0 d2 2 high x\n")
    error = slot(page, "a").locator("[data-testid=stAlertContentError]")
    expect(error).to_contain_text(re.compile(r"السطر .?2.?:"))
    expect(error).to_contain_text("ليست عددًا")


def test_example_compare_downloads_and_explain_link(page, app_url):
    open_lab(page, app_url)
    page.locator(".st-key-lab-example-systems button").click()
    expect(page.locator(MEAN)).to_be_visible(timeout=30_000)
    expect(page.get_by_text("B beats A on")).to_be_visible()
    with page.expect_download() as info:
        page.locator(".st-key-lab-csv button").click()
    csv = Path(info.value.path()).read_text(encoding="utf-8")
    assert csv.splitlines()[0].startswith("query_id,A · P@10")
    with page.expect_download() as info:
        page.locator(".st-key-lab-deltas-svg button").click()
    assert Path(info.value.path()).read_text(encoding="utf-8").lstrip().startswith("<svg")
    # Streamlit's own chart menu draws its PNG in the browser: no network needed.
    chart = page.locator("[data-testid=stVegaLiteChart]").first.locator("xpath=..")
    chart.scroll_into_view_if_needed()
    chart.hover()
    with page.expect_download() as info:  # the toolbar shows on hover: click it in place
        chart.locator("button[aria-label='Download as PNG']").dispatch_event("click")
    assert Path(info.value.path()).read_bytes()[:4] == b"\x89PNG"

    # The example opens on RR (its lesson's measure) and the regression q5: the link opens
    # the MRR lesson with q5 as its question q1, in the same language.
    link = page.locator("[data-testid=stPageLink] a", has_text="Open this query")
    link.click()
    expect(page).to_have_url(re.compile(r"/mrr\?lang=en&q=q1&g=d1\..*&h=d2-d1-d3\."))
    expect(page.locator("h1")).to_contain_text("MRR", timeout=30_000)


def test_charts_fit_a_phone(browser, app_url):
    context = browser.new_context(viewport={"width": 390, "height": 800})
    page = context.new_page()
    try:
        open_lab(page, app_url, "ar")
        page.locator(".st-key-lab-example-systems button").click()
        chart = page.locator("[data-testid=stVegaLiteChart]").first
        expect(chart).to_be_visible(timeout=30_000)
        chart.scroll_into_view_if_needed()
        page.wait_for_timeout(500)
        for box in page.locator("[data-testid=stVegaLiteChart] canvas, "
                                "[data-testid=stVegaLiteChart] svg").evaluate_all(
                "els => els.map(e => e.getBoundingClientRect().right)"):
            assert box <= 390 + 1
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
    finally:
        context.close()
