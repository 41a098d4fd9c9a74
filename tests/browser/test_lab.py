"""The lab in a real Chromium: real files uploaded through the file input (good, then bad:
the good one stays in use), messages in both languages, downloads, the explain link, and the
charts inside a phone's width."""

from __future__ import annotations

import codecs
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "assets" / "examples"
MEAN = ".st-key-lab-mean table"


@pytest.fixture(scope="module")
def app_url(streamlit_server) -> str:
    return streamlit_server("app.py", **{"runner.postScriptGC": False})


def open_lab(page: Page, url: str, lang: str = "en") -> Page:
    page.goto(f"{url}/lab?lang={lang}")
    expect(page.locator(".st-key-lab-up-qrels input[type=file]")).to_be_attached(timeout=30_000)
    return page


def upload(page: Page, slot: str, *files: tuple[str, bytes]) -> None:
    page.locator(f".st-key-lab-up-{slot} input[type=file]").set_input_files(
        files=[{"name": name, "mimeType": "application/octet-stream", "buffer": data}
               for name, data in files])


def slot(page: Page, name: str):
    return page.locator(f".st-key-lab-slot-{name}")


def download(page: Page, key: str) -> bytes:
    with page.expect_download() as info:
        page.locator(f".st-key-{key} button").click()
    return Path(info.value.path()).read_bytes()


def test_upload_several_runs_then_bad_files_keeps_the_good(page, app_url):
    open_lab(page, app_url)
    upload(page, "qrels", ("qrels.trec", (EXAMPLES / "seed_qrels.trec").read_bytes()))
    expect(slot(page, "qrels")).to_contain_text(re.compile(r"In use: .?qrels\.trec"))
    upload(page, "runs", ("vector.trec", (EXAMPLES / "seed_vector.trec").read_bytes()),
           ("hybrid.csv", (EXAMPLES / "hybrid.csv").read_bytes()))
    expect(page.locator(MEAN)).to_be_visible(timeout=60_000)
    # names from the run tag (TREC) and the file name (CSV)
    expect(page.locator(MEAN)).to_contain_text("vector")
    expect(page.locator(MEAN)).to_contain_text("hybrid")
    expect(page.locator(".st-key-lab-name-r2 input")).to_have_value("hybrid")

    utf16 = codecs.BOM_UTF16_LE + (EXAMPLES / "seed_vector.trec").read_text().encode("utf-16-le")
    bad = (b"q1 Q0 d1 1 2.0 x\nq1 Q0 d2 2 high x\nq1 Q0 d3 3 1.0\nq1 Q0 d4 4 nan x\n"
           b"q1 Q0 d1 5 0.5 x\nq2 Q0 d9 1 abc x\n")
    upload(page, "runs", ("vector.trec", (EXAMPLES / "seed_vector.trec").read_bytes()),
           ("hybrid.csv", (EXAMPLES / "hybrid.csv").read_bytes()),
           ("five.trec", bad))
    problems = page.locator(".st-key-lab-problems-runs")
    expect(problems).to_contain_text(
        re.compile(r"five\.trec.? could not be read \(5 problems found\)"), timeout=60_000)
    for n in (2, 3, 4, 5, 6):
        expect(problems).to_contain_text(re.compile(rf"Line {n}:"))
    expect(slot(page, "runs")).to_contain_text("The runs loaded before are still in use")
    upload(page, "runs", ("vector-utf16.trec", utf16))
    expect(problems).to_contain_text("UTF-16 LE")
    expect(page.locator(MEAN)).to_contain_text("vector")
    upload(page, "qrels", ("empty.trec", b""))
    expect(slot(page, "qrels").locator("[data-testid=stAlertContentError]")).to_contain_text(
        "The file is empty")
    expect(slot(page, "qrels")).to_contain_text(re.compile(r"The file loaded before"))
    expect(page.locator(MEAN)).to_be_visible()


def test_arabic_messages_for_binary_and_bad_lines(page, app_url):
    open_lab(page, app_url, "ar")
    upload(page, "qrels", ("photo.png", b"\x89PNG\r\n\x1a\n" + bytes(200)))
    expect(slot(page, "qrels").locator("[data-testid=stAlertContentError]")).to_contain_text(
        "هذا ليس ملفًا نصيًا")
    upload(page, "runs", ("run.trec", b"q1 Q0 d1 1 2.0 x\nq1 Q0 d2 2 high x\nq1 Q0 d3\n"))
    error = slot(page, "runs").locator("[data-testid=stAlertContentError]")
    expect(error).to_contain_text(re.compile(r"السطر .?2.?:"))
    expect(error).to_contain_text(re.compile(r"السطر .?3.?:"))
    expect(error).to_contain_text("ليست عددًا")


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_example_table_reports_chart_titles_and_explain_link(page, app_url, lang):
    from metrics import report

    open_lab(page, app_url, lang)
    page.locator(".st-key-lab-example-systems button").click()
    expect(page.locator(MEAN)).to_be_visible(timeout=60_000)
    expect(page.locator(MEAN)).to_contain_text("hybrid")
    expect(page.locator(".st-key-lab-note")).to_contain_text(re.compile(r"Holm.?[–-].?Bonferroni"))
    title = page.locator(".st-key-lab-mean .lab-measure", has_text="RR@10")
    assert "frac" in title.get_attribute("title")            # the formula on hover
    markdown = download(page, "lab-dl-markdown").decode()
    assert markdown.startswith("| # | Run | P@10 | R@10 | RR@10 | AP@10 | nDCG@10 |")
    assert "Holm" in markdown and "Bonferroni" in markdown
    latex = download(page, "lab-dl-latex").decode()
    assert "\\toprule" in latex and "\\textbf{0.9000}" in latex
    assert download(page, "lab-dl-table_csv").decode().startswith("letter,run,P@10")
    table, _ = report.read_trec_eval_q(download(page, "lab-dl-q").decode().split(
        "runid")[0].rsplit("\n", 1)[0] + "\n")
    assert len(table) == 5 and "RR@10" in table.columns
    svg = download(page, "lab-deltas-svg").decode()
    assert svg.lstrip().startswith("<svg") and "hybrid − vector" in svg
    assert "RR@10" in svg                                       # the title names the measure
    # The example opens on RR (its lesson's measure) and the regression q5: one link per
    # run opens lesson 2 with the run's own ids, in the same language.
    link = page.locator(".st-key-lab-explain-link-1 [data-testid=stPageLink] a")
    expect(link).to_contain_text("hybrid")
    # the link itself carries the language (a new tab opens in it) and the run's own ids
    href = link.get_attribute("href")
    assert f"lang={lang}" in href and "r=d5.0-d7.1-d1.0" in href, href
    assert "at=ranking" in href
    link.click()
    expect(page).to_have_url(re.compile(rf"/recall-precision\?.*lang={lang}"))
    expect(page.locator("h1")).to_be_visible(timeout=30_000)
    landed(page, ".st-key-rp-ranking-box")


def test_fusion_adds_a_run_to_the_table(page, app_url):
    open_lab(page, app_url)
    page.locator(".st-key-lab-example-systems button").click()
    expect(page.locator(MEAN)).to_be_visible(timeout=60_000)
    page.locator(".st-key-lab-fuse-make button").click()
    expect(page.locator(MEAN)).to_contain_text("rrf(vector + hybrid)", timeout=60_000)
    data = download(page, "lab-dl-fused-r3").decode()
    assert data.split("\n")[0].endswith("rrf(vector_+_hybrid)")


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


@pytest.mark.parametrize("lang", ["ar", "en"])
def test_ap_explain_link_opens_lesson_3_on_her_query_scrolled_to_it(page, app_url, lang):
    open_lab(page, app_url, lang)
    page.locator(".st-key-lab-example-systems button").click()
    expect(page.locator(MEAN)).to_be_visible(timeout=60_000)
    if lang == "ar":     # the Arabic page's LaTeX: the Arabic caption for XeLaTeX, commented
        latex = download(page, "lab-dl-latex").decode()
        assert "%   \\caption{\\textarabic{مقارنة الأنظمة." in latex
        assert "\\caption{Runs compared." in latex
    choose(page, ".st-key-lab-measure-picker", "AP@10")
    link = page.locator(".st-key-lab-explain-link-0 [data-testid=stPageLink] a")
    expect(link).to_have_attribute("href", re.compile(r"(^|/)mrr\?"), timeout=30_000)
    href = link.get_attribute("href")
    assert f"lang={lang}" in href and "at=ranking" in href and "o=q5.vector.hybrid." in href
    link.click()
    expect(page).to_have_url(re.compile(rf"/mrr\?.*lang={lang}"))
    vector = page.locator(".st-key-mrr-col-vector")
    expect(vector.locator(".rk-item")).to_have_count(3, timeout=30_000)
    expect(page.locator(".st-key-mrr-col-hybrid")).to_contain_text("hybrid")
    landed(page, ".st-key-mrr-col-vector")


def choose(page: Page, box: str, option: str) -> None:
    """Pick ``option`` in the select box inside ``box`` (its list is opened again when a
    rerun redrew the box before the list showed)."""
    wanted = page.get_by_role("option", name=option, exact=True)
    for _ in range(6):
        # open the list once no run is drawing (a run redraws the box and closes the list)
        page.wait_for_function("() => !document.querySelector('[data-testid=stStatusWidget] svg')")
        page.locator(f"{box} [data-testid=stSelectbox] input").click()
        try:
            wanted.click(timeout=5_000)
            break
        except PlaywrightTimeout:
            page.keyboard.press("Escape")
    expect(page.locator(f"{box} [data-testid=stSelectbox] input")).to_have_value(option)


def landed(page: Page, selector: str) -> None:
    """The lesson opened on its ranking: just under the sticky numbers (ui.scroll)."""
    gap = None
    for _ in range(75):
        gap = page.locator(selector).evaluate("el => el.getBoundingClientRect().top") - \
            page.locator(".mz-strip").evaluate("el => el.getBoundingClientRect().bottom")
        if 0 <= gap <= 40:
            break
        page.wait_for_timeout(200)
    assert gap is not None and 0 <= gap <= 40, gap


def test_ndcg_explain_link_lands_on_lesson_5_ranking(page, app_url):
    open_lab(page, app_url, "ar")
    page.locator(".st-key-lab-example-graded button").click()
    expect(page.locator(MEAN)).to_be_visible(timeout=60_000)
    link = page.locator(".st-key-lab-explain-link-0 [data-testid=stPageLink] a")
    expect(link).to_have_attribute("href", re.compile(r"(^|/)ndcg\?.*at=ranking"),
                                   timeout=30_000)
    link.click()
    expect(page).to_have_url(re.compile(r"/ndcg\?.*lang=ar"))
    expect(page.locator(".st-key-nd-ranking-box")).to_be_visible(timeout=30_000)
    landed(page, ".st-key-nd-ranking-box")
