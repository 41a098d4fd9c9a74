"""Tests for metrics.faithfulness: the checker, the lesson's crude check, a labelled set."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics import faithfulness as f

# The seed's leave example (source lesson, part 4), re-created word for word: the crude check's
# 86 %, 86 %, 0 % depend on these exact words. Used only here.
SEED_SOURCE = ("يحق للموظف إجازة سنوية مدتها واحد وعشرون يوم عمل. "
               "تقدم الطلبات قبل أسبوعين. يمكن ترحيل عشرة أيام إلى السنة التالية.")
SEED_ANSWER = ("لك واحد وعشرون يوم عمل إجازة سنوية. "
               "ويمكنك ترحيل عشرة أيام إلى السنة التالية. "
               "ويمكنك صرف رصيد الإجازة نقدا عند الاستقالة.")

# Our own example sentences (not the seed's).
SRC = "يستحق الموظف إجازة سنوية مدتها واحد وعشرون يوما. يمكن ترحيل عشرة أيام فقط إلى العام التالي."


def verdicts(answer, sources=SRC, **kw):
    return [s.verdict for s in f.check(answer, sources, **kw).sentences]


# ------------------------------------------------------------------ crude check
def test_crude_check_reproduces_seed_numbers():
    rows = f.crude_check(SEED_ANSWER, SEED_SOURCE)
    assert [r.support for r in rows] == [6 / 7, 6 / 7, 0 / 7]
    assert [f"{r.support:.0%}" for r in rows] == ["86%", "86%", "0%"]
    assert [r.verdict for r in rows] == ["supported", "supported", "unsupported"]


def test_checker_on_seed_example():
    report = f.check(SEED_ANSWER, SEED_SOURCE)
    assert [s.verdict for s in report.sentences] == ["supported", "supported", "unsupported"]
    assert report.score == pytest.approx(2 / 3)
    assert report.sentences[1].evidence.startswith("يمكن ترحيل")


def test_crude_divides_by_zero_on_english_and_checker_does_not():
    rows = f.crude_check("Staff get 21 days.", "Staff get 21 days.")
    assert rows[0].support is None and "ZeroDivision" in rows[0].verdict
    assert verdicts("Staff get 21 days.", "Staff get 21 days.") == ["supported"]


# ------------------------------------------------------------------ each crude failure mode
@pytest.mark.parametrize("answer", [
    "يَسْتَحِقُّ الموظفُ إجازةً سنويةً مدتُها واحدٌ وعشرونَ يوماً.",       # diacritics
    "يستحـــق الموظـف إجازة سنويـة مدتها واحد وعشرون يومـا.",              # tatweel
    "يستحق الموظف اجازة سنوية مدتها واحد وعشرون يوما.",                  # hamza: اجازة
    "يستحق الموظف إجازه سنويه مدتها واحد وعشرون يوما.",                  # ta marbuta as ه
    "يستحق الموظف إجازة سنویة مدتها واحد وعشرون یوما.",                  # Persian ya
])
def test_failure_modes_crude_misses_checker_handles(answer):
    crude = f.crude_check(answer, SRC)
    assert crude[0].support < 1.0                                       # the crude one loses words
    assert verdicts(answer) == ["supported"]
    assert f.check(answer, SRC).sentences[0].support == 1.0


@pytest.mark.parametrize("number", ["٢١", "21", "twenty-one"])
def test_numbers_crude_is_blind_checker_sees(number):
    right = f"يستحق الموظف إجازة سنوية مدتها {number} يوما."
    wrong = "يستحق الموظف إجازة سنوية مدتها ٩٩ يوما."
    # crude: digits and Latin are invisible, a right and a wrong number look the same
    assert f.crude_check(right, SRC)[0].support == f.crude_check(wrong, SRC)[0].support
    assert verdicts(right) == ["supported"]
    assert f.check(right, SRC).sentences[0].support == 1.0
    assert verdicts(wrong) == ["check"]


def test_alef_maqsura():
    src = "يرسل الطلب إلى المدير مباشرة."
    ans = "يرسل الطلب الي المدير مباشرة."
    assert f.crude_check(ans, src)[0].support < 1
    assert f.check(ans, src).sentences[0].support == 1.0


def test_clitics_wyumkinuk_vs_yumkin():
    ans = "ويمكنك ترحيل عشرة أيام فقط إلى العام التالي."
    crude = f.crude_check(ans, SRC)[0]
    assert crude.support < 1
    s = f.check(ans, SRC).sentences[0]
    assert s.support == 1.0 and s.verdict == "supported"
    assert "يمكن" in f.stem(f.normalize("ويمكنك"))


@pytest.mark.parametrize("sep", ["؟ ", "! ", "؛ ", "\n", "! "])
def test_sentence_endings(sep):
    ans = "يستحق الموظف إجازة سنوية مدتها 21 يوما" + sep + "ويحصل على سيارة مجانية."
    assert len(f.crude_check(ans, SRC)) == 1                               # crude sees one
    assert verdicts(ans) == ["supported", "unsupported"]


def test_decimals_and_abbreviations_do_not_split():
    src = "The default threshold is 0.6 in the guide by Dr. Haddad, e.g. for the U.S. office."
    spans = f.split_sentences(src)
    assert len(spans) == 1
    assert len(f.crude_check("العتبة 0.6 افتراضيا.", "العتبة 0.6 افتراضيا.")) == 2  # crude splits
    two = f.split_sentences("The value is ٠٫٦ here. Next one? Yes! Done؟ تم؛ ثم\nآخر")
    assert len(two) == 7


def test_english_plurals_and_numbers():
    s = f.check("Employees carry over ten days.", "An employee can carry over 10 day.")
    assert s.sentences[0].support == 1.0


def test_number_words_same_value():
    keys = [u.key for u in f._units("واحد وعشرون 21 ٢١ twenty-one عشرة عشر أيام 10 ten")]
    assert keys.count("#21") == 4 and keys.count("#10") == 4


# ------------------------------------------------------------------ warnings
def test_changed_number_warning():
    s = f.check("يستحق الموظف إجازة سنوية مدتها خمسة وعشرون يوما.", SRC).sentences[0]
    assert "number_not_in_source" in s.warnings
    assert s.verdict == "check"


def test_negation_warning_arabic_and_english():
    s = f.check("لا يمكن ترحيل عشرة أيام إلى العام التالي.", SRC).sentences[0]
    assert s.support >= 0.6 and "negation_differs" in s.warnings and s.verdict == "check"
    e = f.check("Unused days cannot be carried over.", "Unused days can be carried over.")
    assert "negation_differs" in e.sentences[0].warnings
    assert e.sentences[0].verdict == "check"


def test_name_warning():
    src = "Dr. Haddad wrote the evaluation guide."
    s = f.check("Dr. Nasser wrote the evaluation guide.", src).sentences[0]
    assert "name_not_in_source" in s.warnings and s.verdict == "check"
    assert f.check("Dr. Haddad wrote the evaluation guide.", src).sentences[0].warnings == []


def test_stop_words_never_drop_negators_numbers_modals():
    for w in ("لا", "لم", "لن", "ليس", "ما", "غير", "not", "no", "never"):
        assert f.normalize(w) not in f._STOP
    for w in ("يمكن", "may", "can", "must", "عشرة", "ten", "واحد"):
        assert f.normalize(w) not in f._STOP


def test_not_scored_left_out_of_score():
    report = f.check("شكرًا لك! يستحق الموظف إجازة سنوية مدتها 21 يوما.", SRC)
    assert [s.verdict for s in report.sentences] == ["not_scored", "supported"]
    assert report.sentences[0].support is None
    assert report.score == 1.0
    assert f.check("...", SRC).score is None
    assert f.check("", SRC).sentences == []


def test_sources_as_list():
    report = f.check("يمكن ترحيل عشرة أيام.", ["نص آخر تماما.", SRC])
    assert report.sentences[0].verdict == "supported"


# ------------------------------------------------------------------ spans
def test_spans_are_exact():
    answer = "مرحبًا.  ويُمكنُك ترحيل ١٠ أيامٍ؟ Staff get twenty-one days!"
    report = f.check(answer, SRC)
    for s in report.sentences:
        assert answer[s.start:s.end] == s.text
        for w in s.matched + s.unmatched:
            assert answer[w.start:w.end] == w.text
            assert s.start <= w.start < w.end <= s.end
    texts = [w.text for s in report.sentences for w in s.matched + s.unmatched]
    assert "ويُمكنُك" in texts and "twenty-one" in texts and "١٠" in texts


@settings(max_examples=300, deadline=None)
@given(st.text(), st.one_of(st.text(), st.lists(st.text(), max_size=3)))
def test_arbitrary_text_never_raises(answer, sources):
    report = f.check(answer, sources)
    for s in report.sentences:
        assert 0 <= s.start <= s.end <= len(answer)
        assert answer[s.start:s.end] == s.text
        assert s.verdict in ("supported", "unsupported", "check", "not_scored")
        assert s.support is None or 0 <= s.support <= 1
        for w in s.matched + s.unmatched:
            assert s.start <= w.start < w.end <= s.end
            assert answer[w.start:w.end] == w.text
    f.crude_check(answer, sources if isinstance(sources, str) else " ".join(sources))


ARABIC_ALPHABET = st.text(alphabet="ابتثجحخدذرسشصضطظعغفقكلمنهوي ءأإآؤئةىًٌٍَُِّْـ٠١٢.؟!؛\n",
                          max_size=200)


@settings(max_examples=300, deadline=None)
@given(ARABIC_ALPHABET, ARABIC_ALPHABET)
def test_arbitrary_arabic_never_raises(answer, source):
    for s in f.check(answer, source).sentences:
        assert answer[s.start:s.end] == s.text


# Speed (a 10-sentence answer < 50 ms): bench/bench_live.py --lessons faithfulness.


# ------------------------------------------------------------------ labelled set
LABELLED = tomllib.loads(
    (Path(__file__).parent / "data" / "faithfulness_labelled.toml").read_text("utf-8"))["item"]


def _check_verdict(item):
    sents = f.check(item["sentence"], item["source"]).sentences
    assert len(sents) == 1, item["sentence"]
    v = sents[0].verdict
    return "unsupported" if v == "check" else v


def _crude_verdict(item):
    rows = f.crude_check(item["sentence"], item["source"])
    if not rows or any(r.support is None for r in rows):
        return "error"
    return "supported" if all(r.verdict == "supported" for r in rows) else "unsupported"


def test_labelled_set_shape():
    assert len(LABELLED) >= 30
    kinds = {i["kind"] for i in LABELLED}
    assert kinds == {"supported", "paraphrased", "invented", "negated", "wrong_number",
                     "no_claim"}
    assert any(re.search("[A-Za-z]", i["sentence"]) for i in LABELLED)
    assert all(i["verdict"] in ("supported", "unsupported", "check", "not_scored")
               for i in LABELLED)


def test_agreement_with_human_verdicts():
    n = len(LABELLED)
    check_ok = sum(_check_verdict(i) == i["verdict"] for i in LABELLED)
    crude_ok = sum(_crude_verdict(i) == i["verdict"] for i in LABELLED)
    misses = [(i["kind"], i["sentence"], _check_verdict(i)) for i in LABELLED
              if _check_verdict(i) != i["verdict"]]
    print(f"\nagreement with human verdicts on {n} sentences: "
          f"check {check_ok}/{n} = {check_ok / n:.2f}, crude {crude_ok}/{n} = {crude_ok / n:.2f}")
    for kind in sorted({i["kind"] for i in LABELLED}):
        items = [i for i in LABELLED if i["kind"] == kind]
        a = sum(_check_verdict(i) == i["verdict"] for i in items)
        b = sum(_crude_verdict(i) == i["verdict"] for i in items)
        print(f"  {kind:13} check {a}/{len(items)}  crude {b}/{len(items)}")
    for m in misses:
        print("  check missed:", m)
    assert check_ok > crude_ok
    assert check_ok / n >= 0.75
