"""/live in Chromium: one instructor (laptop) and three students (phones), each its own browser
context, against one real server and database. Answer, change, live count, reveal, export."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import time

import pytest
from playwright.sync_api import Page, expect

from tests.browser.interact import open_expander, stores_read
from text import bidi

# Several browsers, servers and a database at once. The role switch that came back empty under
# load is fixed (lessons/live/page.current_role, session 9); one failure is not: under load a
# "Push to the class" click has, rarely, not pushed (the projector kept "No question yet", no
# confirmation under the button; CI at load ~10, sessions 8 and 9; never alone). One rerun,
# counted ("R") in pytest's summary; a failure twice in a row still fails.
pytestmark = [pytest.mark.browser, pytest.mark.flaky(reruns=1)]

PATH = "/live"
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def app_url(streamlit_server, tmp_path_factory) -> str:
    # The server inherits the environment: its own database folder. The extra option makes
    # this server distinct from other test files' servers, which do not carry the variable.
    saved = os.environ.get("MIZAN_DATA_DIR")
    os.environ["MIZAN_DATA_DIR"] = str(tmp_path_factory.mktemp("live-db"))
    try:
        return streamlit_server("app.py", **{"runner.postScriptGC": False,
                                             "client.showErrorDetails": "none"})
    finally:
        if saved is None:
            os.environ.pop("MIZAN_DATA_DIR", None)
        else:
            os.environ["MIZAN_DATA_DIR"] = saved


def main(page: Page):
    return page.locator("[data-testid=stMainBlockContainer]")


def shows(page: Page, text: str, timeout: float = 30) -> None:
    """Wait until the page's main text, read without bidi isolates, contains ``text``."""
    deadline = time.monotonic() + timeout
    seen = ""
    while time.monotonic() < deadline:
        seen = bidi.strip_bidi_controls(main(page).inner_text())
        if text in seen:
            return
        page.wait_for_timeout(200)
    raise AssertionError(f"{text!r} not shown; the page says:\n{seen[-1500:]}")


def start_session(page: Page, url: str, lang: str = "en") -> str:
    page.goto(f"{url}{PATH}?lang={lang}")
    teacher = page.get_by_role("radio", name="The teacher: run a session" if lang == "en"
                               else "المدرّس: أدير جلسة")
    expect(teacher).to_be_visible(timeout=30_000)     # a cold page on a busy machine
    teacher.click()
    page.get_by_role("button", name="Start a new session" if lang == "en"
                     else "ابدأ جلسة جديدة").click()
    code_box = page.locator(".mz-live-code")
    expect(code_box).to_have_text(re.compile(r"^[A-Z2-9]{6}$"), timeout=30_000)
    expect(page.locator(".mz-live-join svg")).to_be_visible()  # the QR code
    return code_box.inner_text()


def join(browser, url: str, code: str, nickname: str) -> Page:
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.set_default_timeout(20_000)
    page.goto(f"{url}{PATH}?join={code}&lang=en")
    field = page.get_by_label("Session code")
    expect(field).to_have_value(code, timeout=30_000)  # filled from the QR link
    if nickname:
        page.get_by_label("Nickname (optional)").fill(nickname)
    page.get_by_role("button", name="Join").click()
    shows(page, f"You joined session {code}")
    return page


def answer(page: Page, value: str, button: str = "Send", pause_ms: int = 0) -> None:
    box = page.get_by_label("Your answer")
    box.fill(value)
    page.wait_for_timeout(pause_ms)  # the box's polls redraw it meanwhile: the text must stay
    page.get_by_role("button", name=button).click()


def test_a_class_answers_changes_sees_the_reveal_and_the_instructor_exports(
        browser, page, app_url):
    code = start_session(page, app_url)
    students = [join(browser, app_url, code, name) for name in ("Ali", "<b>x</b>", "")]
    page.get_by_role("button", name="Push to the class").click()
    shows(page, "0 of 3 answered")

    for student in students:  # each phone picks the question up on its own poll
        shows(student, "What is recall@3 for this ranking?", 20)
    answer(students[0], "0.5")
    shows(students[0], "Your answer 0.5 is in.")
    answer(students[1], "1/3")
    answer(students[2], "0.33", pause_ms=3000)
    shows(students[2], "Your answer 0.33 is in.")

    # a reload keeps the phone's participant (the browser keeps its token, the address
    # never carries it) and its answer
    assert "me=" not in students[0].url and "join=" in students[0].url
    students[0].reload()
    shows(students[0], "You joined session")
    shows(students[0], "Ali")
    shows(students[0], "Your answer: 0.5")
    expect(students[0].get_by_label("Nickname (optional)")).to_have_count(0)
    answer(students[1], "0.5", button="Change my answer")
    shows(students[1], "Changed from 0.3333 to 0.5.")
    answer(students[2], "abc", button="Change my answer")
    shows(students[2], "That is not a number the app can read.")

    # the projector catches up without anyone touching it
    shows(page, "3 of 3 answered", 15)
    expect(page.locator("[data-testid=stVegaLiteChart]")).to_be_visible()
    roster = page.locator(".mz-live-roster")
    expect(roster).to_contain_text("<b>x</b>")  # typed markup shown as text
    assert roster.locator("b").count() == 0

    page.get_by_role("button", name="Reveal the answer").click()
    shows(page, "Right answer: 0.50 — 67 % of those who answered got it.")
    shows(page, "Most common wrong answer: 0.33 (chosen by 1 student).")
    shows(page, "Divided by k instead of by all relevant documents")

    shows(students[0], "The right answer is 0.50. You got it.", 20)
    shows(students[2], "The right answer is 0.50.", 20)
    expect(students[2].get_by_label("Your answer")).to_have_count(0)  # closed: no form

    with page.expect_download() as download:
        page.get_by_role("button", name="Export answers (CSV)").click()
    data = download.value.path().read_bytes().decode("utf-8-sig")
    rows = list(csv.DictReader(io.StringIO(data)))
    assert sorted((r["nickname"], r["answer"], r["is_correct"], r["revisions"]) for r in rows) == [
        ("", "0.33", "0", "1"), ("<b>x</b>", "0.5", "1", "2"), ("Ali", "0.5", "1", "1")]
    for student in students:
        student.context.close()


def test_unknown_code_and_arabic_student_screen(browser, app_url):
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(f"{app_url}{PATH}?join=ZZZ999")
    expect(page.get_by_label("رمز الجلسة")).to_have_value("ZZZ999", timeout=30_000)
    stores_read(page)   # their rerun comes before the click, not after it
    page.get_by_role("button", name="انضمّ").click()
    shows(page, "لا توجد جلسة مفتوحة بهذا الرمز", timeout=30)
    assert page.locator("[dir=rtl][lang=ar]").count() > 0
    context.close()


# --- issue 17: the key, the token, a restart ------------------------------------------------------

STORED_KEY = "() => localStorage.getItem('mizan-live-host')"
STORED_ME = "() => localStorage.getItem('mizan-live-me')"


def record_frames(page: Page) -> list[bytes]:
    """Every websocket message the page receives from now on (Streamlit's protobufs)."""
    frames: list[bytes] = []

    def on_socket(ws):
        ws.on("framereceived", lambda payload: frames.append(
            payload if isinstance(payload, bytes) else payload.encode()))
    page.on("websocket", on_socket)
    return frames


def kept(page: Page, script: str, timeout: float = 45) -> dict:
    """What this browser keeps under ``script``'s storage key, once it keeps it (the bridge
    writes after the run that made the value)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        stored = page.evaluate(script)
        if stored:
            return json.loads(stored)
        page.wait_for_timeout(200)
    raise AssertionError(f"the browser never kept anything for {script}")


def kept_key(page: Page) -> tuple[str, str]:
    """The (code, key) this browser keeps."""
    data = kept(page, STORED_KEY)
    return data["code"], data["key"]


def heading_with(page: Page, text: str):
    """The heading whose text, read without bidi isolates, contains ``text``."""
    headings = main(page).get_by_role("heading")
    for i in range(headings.count()):
        if text in bidi.strip_bidi_controls(headings.nth(i).inner_text()):
            return headings.nth(i)
    raise AssertionError(f"no heading says {text!r}")


def test_the_key_never_reaches_the_projector_view_or_a_student(browser, app_url):
    laptop = browser.new_context(viewport={"width": 1280, "height": 800})
    page = laptop.new_page()
    code = start_session(page, app_url)
    _, key = kept_key(page)
    assert len(key) == 32
    # the projector: presenter view in the same browser (it resumes from what it keeps)
    projector = laptop.new_page()
    frames = record_frames(projector)
    projector.goto(f"{app_url}{PATH}?lang=en&present=1")
    expect(projector.locator(".mz-live-code")).to_have_text(code, timeout=30_000)
    open_expander(projector, projector.locator("[data-testid=stExpander]").first)
    projector.get_by_role("button", name="Push to the class").click()
    shows(projector, "0 of 0 answered")
    projector.wait_for_timeout(3000)   # a few projector polls
    assert frames and not any(key.encode() in f for f in frames)
    assert key not in projector.content()
    # the laptop switches to presenter view: not one message carries the key any more
    later = record_frames(page)
    page.reload()
    expect(page.locator(".mz-live-code")).to_have_text(code, timeout=30_000)
    page.get_by_role("button", name="Presenter view").click()
    shows(page, "0 of 0 answered")
    page.wait_for_timeout(2000)
    assert later and not any(key.encode() in f for f in later)
    # a student's phone
    phone = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    student_page = phone.new_page()
    student_frames = record_frames(student_page)
    student_page.goto(f"{app_url}{PATH}?join={code}&lang=en")
    expect(student_page.get_by_label("Session code")).to_have_value(code, timeout=30_000)
    student_page.get_by_role("button", name="Join").click()
    shows(student_page, "What is recall@3 for this ranking?", 20)
    answer(student_page, "0.5")
    shows(student_page, "Your answer 0.5 is in.")
    assert not any(key.encode() in f for f in student_frames)
    assert key not in student_page.content()
    phone.close()
    laptop.close()


def test_a_shared_link_carries_no_identity(browser, app_url, page):
    from ui import share

    code = start_session(page, app_url)
    desk = browser.new_context(viewport={"width": 1280, "height": 900})
    student_page = join_on(desk, app_url, code, "Rana")
    token = kept(student_page, STORED_ME)["token"]
    student_page.locator("[data-testid=stSidebar] summary").filter(
        has_text="Share this page").click()
    box = student_page.locator("[data-testid=stSidebar] .mz-copy input")
    expect(box).to_have_value(re.compile("join="), timeout=10_000)
    link = box.input_value()
    assert "me=" not in link and token not in link and f"join={code}" in link
    drawn = student_page.locator("[data-testid=stSidebar] .mz-qr svg path").first
    expected = re.search(r' d="([^"]+)"', share.qr_svg(link)).group(1)
    assert drawn.get_attribute("d") == expected          # the QR code is that same link
    assert token not in student_page.url
    desk.close()


def join_on(context, url: str, code: str, nickname: str) -> Page:
    page = context.new_page()
    page.set_default_timeout(20_000)
    page.goto(f"{url}{PATH}?join={code}&lang=en")
    expect(page.get_by_label("Session code")).to_have_value(code, timeout=30_000)
    stores_read(page)   # their rerun redraws the form: it comes before the typing, not after
    page.get_by_label("Nickname (optional)").fill(nickname)
    page.get_by_role("button", name="Join").click()
    shows(page, f"You joined session {code}")
    return page


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_the_projector_first_screen_holds_code_qr_and_count(browser, app_url, lang, tmp_path):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.set_default_timeout(30_000)
    code = start_session(page, app_url, lang)
    push = "Push to the class" if lang == "en" else "أرسل السؤال إلى الصف"
    counted = "0 of 0 answered" if lang == "en" else "أجاب 0 من 0"
    page.get_by_role("button", name=push).click()
    shows(page, counted, timeout=30)       # pushed (the teacher's view counts answers too)
    page.mouse.move(640, 400)
    page.mouse.wheel(0, 1500)    # a teacher low on the page: presenter view opens at the top
    page.get_by_role("button", name="Presenter view" if lang == "en" else "وضع العرض").click()
    expect(page.get_by_role("button", name="Leave presenter view" if lang == "en"
                            else "الخروج من وضع العرض")).to_be_visible()
    shows(page, counted, timeout=30)
    expect(page.locator(".mz-live-code")).to_have_text(code)
    page.wait_for_timeout(1000)
    inside = []
    for what, locator in (("code", page.locator(".mz-live-code")),
                          ("qr", page.locator(".mz-live-join svg")),
                          ("count", heading_with(page, counted)),
                          ("reveal", page.get_by_role("button", name=re.compile(
                              "Reveal|اكشف")))):
        box = locator.first.bounding_box()
        inside.append((what, box is not None and box["y"] >= 0
                       and box["y"] + box["height"] <= 800 and box["x"] >= 0
                       and box["x"] + box["width"] <= 1280))
    page.screenshot(path=tmp_path / f"projector-{lang}.png")
    assert all(ok for _, ok in inside), inside
    context.close()


SMALL_TARGETS = """() => [...document.querySelectorAll(
    '[data-testid=stMainBlockContainer] :is(button, a[href], [role=radio], input)')]
  .filter(e => e.offsetParent !== null && getComputedStyle(e).pointerEvents !== 'none')
  .map(e => { const r = (e.closest('label') || e).getBoundingClientRect();
              return [e.tagName + ' ' + (e.innerText || e.getAttribute('aria-label') || ''),
                      Math.round(r.width), Math.round(r.height)]; })
  .filter(([, w, h]) => w < 44 || h < 44)"""


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_the_phone_taps_44_px_and_sees_the_question_box(browser, app_url, lang, tmp_path):
    host = browser.new_context(viewport={"width": 1280, "height": 800})
    laptop = host.new_page()
    code = start_session(laptop, app_url, lang)
    laptop.get_by_role("button", name="Push to the class" if lang == "en"
                       else "أرسل السؤال إلى الصف").click()
    phone = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = phone.new_page()
    page.set_default_timeout(30_000)
    page.goto(f"{app_url}{PATH}?join={code}&lang={lang}")
    expect(page.get_by_label("Session code" if lang == "en" else "رمز الجلسة")).to_have_value(
        code, timeout=30_000)
    stores_read(page)        # the run has drawn everything (its CSS too) before we measure
    page.wait_for_function("() => !document.querySelector('[data-testid=stStatusWidget] svg')")
    assert page.evaluate(SMALL_TARGETS) == []
    page.get_by_role("button", name="Join" if lang == "en" else "انضمّ").click()
    box = page.get_by_label("Your answer" if lang == "en" else "إجابتك")
    expect(box).to_be_visible(timeout=30_000)
    page.wait_for_timeout(1000)
    assert page.evaluate(SMALL_TARGETS) == []
    send = page.get_by_role("button", name="Send" if lang == "en" else "أرسِل")
    page.screenshot(path=tmp_path / f"phone-{lang}.png", full_page=True)
    send.scroll_into_view_if_needed()
    top = page.evaluate("() => window.scrollY")
    seen = {name: locator.bounding_box() for name, locator in (
        ("question", page.get_by_role("heading", level=4).first), ("box", box), ("send", send))}
    # the question, its box and the button on one phone screen
    assert all(b is not None and b["y"] >= 0 and b["y"] + b["height"] <= PHONE["height"]
               for b in seen.values()), (top, seen)
    phone.close()
    host.close()
