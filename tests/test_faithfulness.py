"""Tests for metrics.faithfulness: the checker, the lesson's crude check, our own examples of every
kind, and the checker's agreement with independent human labels (development and held-out)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics import faithfulness as f
from metrics.faithfulness_agreement import (
    LABELLED_SETS,
    agreement_table,
    human_verdict,
    item_verdict,
    load_items,
    wilson,
)

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
    assert "number_not_in_source" in s.reasons
    assert s.verdict == "check"


def test_negation_warning_arabic_and_english():
    s = f.check("لا يمكن ترحيل عشرة أيام إلى العام التالي.", SRC).sentences[0]
    assert s.support >= 0.6 and "negation_differs" in s.reasons and s.verdict == "check"
    e = f.check("Unused days cannot be carried over.", "Unused days can be carried over.")
    assert "negation_differs" in e.sentences[0].reasons
    assert e.sentences[0].verdict == "check"


def test_name_warning():
    src = "Dr. Haddad wrote the evaluation guide."
    s = f.check("Dr. Nasser wrote the evaluation guide.", src).sentences[0]
    assert "name_not_in_source" in s.reasons and s.verdict == "check"
    assert f.check("Dr. Haddad wrote the evaluation guide.", src).sentences[0].reasons == []


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


# ------------------------------------------------------------------ claims
def claims(answer, sources=SRC):
    return [(c.text, c.verdict) for c in f.check(answer, sources).claims]


def test_a_compound_sentence_is_judged_claim_by_claim():
    src = ("Visitors must sign in at reception. Parking is free for visitors for two hours. "
           "The building closes at 7 p.m.")
    report = f.check("Visitors must sign in at reception, and parking is free for three hours.",
                     src)
    sent = report.sentences[0]
    assert [c.verdict for c in sent.claims] == ["supported", "check"]
    assert sent.verdict == "check"                        # the weakest claim's verdict
    assert sent.support == min(c.support for c in sent.claims)
    assert sent.claims[0].evidence.startswith("Visitors must sign in")
    assert sent.claims[1].warnings == ["number_not_in_source"]
    both = f.check("Visitors must sign in at reception, and parking is free for two hours.", src)
    assert both.sentences[0].verdict == "supported"
    assert both.sentences[0].evidence.count(".") == 2     # both source sentences shown


def test_arabic_compound_and_the_weakest_claim():
    src = "يبدأ الدوام في الساعة الثامنة. ويحصل الموظف على استراحة مدتها ساعة واحدة."
    ok = f.check("يبدأ الدوام في الساعة الثامنة، ويحصل الموظف على استراحة ساعة واحدة.", src)
    assert [c.verdict for c in ok.claims] == ["supported", "supported"]
    bad = f.check("يبدأ الدوام في الساعة الثامنة، ثم يحصل الموظف على وجبة غداء مجانية.", src)
    assert [c.verdict for c in bad.claims] == ["supported", "unsupported"]
    assert bad.sentences[0].verdict == "unsupported"


def test_short_pieces_join_a_neighbour():
    src = "Each new starter gets a laptop, a headset and a docking station from IT."
    got = f.check("Each new starter gets a laptop, a headset and a docking station from IT.", src)
    assert [c.text for c in got.claims] == ["Each new starter gets a laptop, a headset",
                                            "and a docking station from IT."]
    assert got.sentences[0].verdict == "supported"
    staff = f.check("Staff who fail the test must retake it.", "Staff who fail the test must "
                    "retake it.")
    assert len(staff.claims) == 1                          # "Staff" | "who fail …" rejoined


def test_claim_spans_are_exact_and_cover_their_words():
    answer = "Thanks! يحق للموظف إجازة، ويجب تقديم الطلب قبل أسبوعين; and a note: nothing."
    for sent in f.check(answer, SRC).sentences:
        for c in sent.claims:
            assert answer[c.start:c.end] == c.text
            assert sent.start <= c.start < c.end <= sent.end
            for w in c.matched + c.unmatched:
                assert c.start <= w.start < w.end <= c.end


# ------------------------------------------------------------------ paraphrase
def test_equivalences_are_used_and_reported():
    src = "Members can borrow up to eight books at a time."
    claim = f.check("Members may take out a maximum of 8 books at a time.", src).claims[0]
    assert claim.verdict == "supported" and claim.support == 1.0
    used = {(e.answer, e.source, e.via) for e in claim.equivalences}
    assert ("may", "can", "group: may") in used
    assert ("take out", "borrow", "group: borrow") in used
    assert ("a maximum of", "up to", "group: up to") in used
    assert ("8", "eight", "same number") in used


def test_arabic_synonyms_clitics_and_broken_plurals():
    src = "يحق للموظف الحصول على إجازة مرضية بأجر كامل مدتها عشرة أيام في السنة."
    for answer in ("يجوز للموظف أن يأخذ إجازة مرضية براتب كامل مدتها 10 أيام سنويًا.",
                   "وللموظف أن يحصل على إجازة مرضية بأجر كامل مدتها ١٠ أيام كل عام.",
                   "يَحِقُّ لِلْمُوَظَّفِ الحُصُولُ عَلَى إِجَازَةٍ مَرَضِيَّةٍ بِأَجْرٍ كَامِلٍ مُدَّتُهَا عَشَرَةُ أَيَّامٍ فِي السَّنَةِ."):
        assert verdicts(answer, src) == ["supported"], answer
    ten_days = f.check("يحق للموظف إجازة مرضية مدتها عشرة أيام.", src).claims[0]
    assert {w.key for w in ten_days.matched} >= {"#10", f._phrase_at(f._tokens("يوم"), 0)[1].key}


def test_wa_before_a_modal_with_a_pronoun_splits_the_claim():
    """«… يومًا ويمكنك ترحيلها» was judged as one claim (the after-«و» list has «يمكن», not
    «يمكنك»); lesson 4 says «و» before «يمكن» splits, so it does with a pronoun too."""
    src = "يستحق الموظف إجازة سنوية مدتها واحد وعشرون يوما."
    claims = f.check("لك إجازة سنوية مدتها واحد وعشرون يوما ويمكنك ترحيلها.", src).claims
    assert [c.verdict for c in claims] == ["supported", "unsupported"]


def test_each_reading_gives_its_own_reason():
    """Round 63: 'unpaid → paid' was shown as 'same meaning' and «ويمكنك → يمكن» as a member of
    the group يجوز; an antonym is now 'opposite', one word in two forms 'same stem'."""
    def vias(answer, source):
        claim = f.check(answer, source).claims[0]
        return {(e.answer, e.source, e.via) for e in claim.equivalences}
    assert ("unpaid", "paid", "opposite: pay") in vias("Sick leave is unpaid.",
                                                       "Sick leave is paid.")
    assert vias("ويمكنك ترحيل إجازتك.", "يمكن للموظف ترحيل إجازة.") == {
        ("ويمكنك", "يمكن", "same stem"), ("إجازتك", "إجازة", "same stem")}
    assert vias("You can carry over ten days.", "Staff may carry over ten days.") == {
        ("can", "may", "group: may")}


def test_broken_plurals_match_by_their_root_letters():
    src = "يجب تسليم التقرير الشهري قبل اليوم العاشر من كل شهر. تُرفق الوثيقة بالطلب."
    claim = f.check("تُسلَّم التقارير الشهرية قبل العاشر من كل شهر.", src).claims[0]
    assert claim.verdict == "supported"
    assert ("التقارير", "التقرير", "same root letters") in {
        (e.answer, e.source, e.via) for e in claim.equivalences}
    assert verdicts("تُرفق الوثائق بالطلب.", src) == ["supported"]
    assert f._skeleton("كتاب") == "كتب" and "≈كتب" not in f._alternatives("كتب")  # 3 letters


def test_voice_reorder_and_morphology():
    src = ("Expense claims are approved by the line manager. Receipts must be kept for six "
           "years. Completion of the safety course is required before site visits.")
    for answer in ("The line manager approves expense claims.",
                   "For six years, receipts must be kept.",
                   "Staff must complete the safety course before site visits."):
        assert verdicts(answer, src) == ["supported"], answer


def test_english_does_not_match_arabic_through_the_table():
    src = "يمكن ترحيل عشرة أيام إلى السنة التالية."
    assert verdicts("You can carry over 10 days to the next year.", src) == ["unsupported"]


# ------------------------------------------------------------------ numbers
@pytest.mark.parametrize(("text", "value"), [
    ("إحدى عشرة", 11), ("اثنتا عشرة", 12), ("خمسة عشر", 15), ("خمس عشرة", 15),
    ("ثلاثين", 30), ("أربع وعشرين", 24), ("مائة وخمسون", 150), ("مئة وخمسين", 150),
    ("ثلاثمائة وخمسة وعشرون", 325), ("ألفًا", 1000), ("ألفي", 2000), ("عشرون ألفًا", 20000),
    ("خمسة آلاف", 5000), ("١٬٥٠٠", 1500), ("twenty-five", 25), ("one hundred and fifty", 150),
    ("fifteenth", 15), ("10th", 10), ("twice", 2), ("الخامس والعشرين", 25),
])
def test_numbers_in_words_both_languages_and_genders(text, value):
    assert [u.key for u in f._units(text)] == [f"#{value}"]


@pytest.mark.parametrize(("dual", "noun"), [("يومين", "يوم"), ("بأسبوعين", "أسبوع"),
                                            ("ساعتي", "ساعة"), ("سنتان", "سنة")])
def test_arabic_duals_are_two_of_the_noun(dual, noun):
    keys = [u.key for u in f._units(dual)]
    assert keys == ["#2", f._units(noun)[0].key]


def test_weekdays_are_not_numbers():
    assert f._units("يوم الأحد")[-1].kind == "date"
    assert f._units("الاثنين")[0].kind == "date"
    assert f._units("واحد")[0].key == "#1"


@pytest.mark.parametrize(("answer", "verdict", "warnings"), [
    ("Unused days are paid out in May.", "check", ["name_not_in_source"]),   # round 48
    ("Unused days are paid out in June.", "supported", []),
    ("May I carry days over? You may carry over five days.", "supported", []),  # the modal
])
def test_may_inside_a_sentence_is_the_month(answer, verdict, warnings):
    source = "Unused days are paid out in June. You may carry over five days."
    last = f.check(answer, [source]).sentences[-1]
    assert (last.verdict, last.reasons) == (verdict, warnings)


@pytest.mark.parametrize(("source", "answer"), [
    ("Employees work from home on Fridays. Laptops must be returned within a week.",
     "Employees must work from home on Fridays."),
    ("يعمل الموظفون من المنزل يوم الجمعة. يجب إعادة الأجهزة خلال أسبوع.",
     "يجب أن يعمل الموظفون من المنزل يوم الجمعة."),
])
def test_a_must_borrowed_from_another_sentence_is_a_miss_the_lesson_names(source, answer):
    """Lesson 4's "Pieced claims" bullet names this miss (round 50): if the checker learns to
    catch it, the bullet must change with it."""
    assert f.check(answer, [source]).sentences[0].verdict == "supported"


# ------------------------------------------------------------------ warnings
SRC_EN = ("Staff may work from home two days a week. Overtime must be approved by the line "
          "manager. The office opens at 8 a.m. and closes at 6 p.m. on weekdays. Laptops are "
          "replaced every four years. Requests for licences costing more than $500 need "
          "approval from the budget holder.")


@pytest.mark.parametrize(("answer", "warning"), [
    ("Staff may work from home four days a week.", "number_not_in_evidence"),   # 4: laptops
    ("The office is open from 8 a.m. to 8 p.m. on weekdays.", "number_not_in_evidence"),
    ("Staff may work from home two days a week with the line manager's approval.",
     "words_from_other_sentence"),
    ("The budget holder must approve every licence request.", "limit_dropped"),
    ("Staff must work from home two days a week.", "modal_differs"),
    ("Overtime is forbidden.", "negation_differs"),
    ("The office opens at 8 a.m. on Saturdays.", "name_not_in_source"),
])
def test_each_new_warning(answer, warning):
    claim = f.check(answer, SRC_EN).claims[0]
    assert warning in claim.warnings, (answer, claim.warnings)
    assert claim.verdict in ("check", "unsupported")


def test_modals_are_compared_by_meaning_across_languages():
    """An English claim against Arabic evidence: "can" and «يمكن» both say "may" (round 40:
    the card warned "must" against "may"); "must" against «يمكن» still differs."""
    src = "يمكن ترحيل عشرة أيام على الأكثر إلى العام التالي."
    can = f.check("You can carry over ten days to the next year.", src).claims[0]
    assert "modal_differs" not in can.warnings
    must = f.check("You must carry over ten days to the next year.", src).claims[0]
    assert "modal_differs" in must.warnings


def test_a_sentence_gives_every_warning_of_its_claims_once():
    sent = f.check("Staff may work from home four days a week.", SRC_EN).sentences[0]
    assert sent.reasons == ["number_not_in_evidence"]
    for s in f.check("Staff may work from home 9 days a week, not two.", SRC_EN).sentences:
        raised = [w for c in s.claims for w in c.warnings]
        assert s.reasons == list(dict.fromkeys(raised)) and set(s.reasons) <= set(f.WARNINGS)


def test_topic_words_and_the_longer_name_are_not_borrowed_facts():
    src = ("The city library lends books for three weeks. The library charges 20 pence a day "
           "for late returns. The library is run by Laura Chen.")
    # "library" is in every sentence: the topic, not a fact from elsewhere
    assert verdicts("The library lends books for three weeks.", src) == ["supported"]
    office = "يغلق المكتب الرئيسي في الخامسة. يقع المكتب في شارع الجامعة."
    assert verdicts("يقع المكتب الرئيسي في شارع الجامعة.", office) == ["supported"]
    assert verdicts("يقع المكتب الرئيسي في الخامسة في شارع الجامعة.", office) != ["supported"]


def test_negation_reach_and_quantity_phrases():
    src = "Up to five days may be carried over, but carried-over days do not earn interest."
    assert verdicts("Up to five days may be carried over.", src) == ["supported"]
    ar = "يجوز ترحيل ما لا يزيد على عشرة أيام إلى السنة التالية."
    assert verdicts("يجوز ترحيل عشرة أيام بحد أقصى إلى السنة التالية.", ar) == ["supported"]
    assert verdicts("لا يجوز ترحيل أي أيام إلى السنة التالية.", ar) == ["check"]
    kids = "يُمنع دخول الأطفال دون 12 عامًا. ويسمح بدخول البالغين."
    assert verdicts("يُسمح بدخول الأطفال دون 12 عامًا.", kids) == ["check"]
    single = "يوفر السكن للموظفين غير المتزوجين."
    assert verdicts("يوفر السكن للموظفين غير المتزوجين.", single) == ["supported"]


def test_a_phrase_added_at_the_end_of_a_true_claim_is_sent_to_check():
    """'… through the self-service portal' rode under the 60 % of the words before it; three or
    more content words in a row at the claim's end that its evidence lacks now raise a warning.
    Two words, or a phrase in the middle, still pass (the lesson's limits say so)."""
    src = "Up to ten days may be carried over to the next year."
    portal = "Up to ten days may be carried over to the next year through the self-service portal."
    assert f.check(portal, src).sentences[0].reasons == ["phrase_not_in_evidence"]
    assert verdicts("Up to ten days may be carried over to the next year with the manager's "
                    "approval.", src) == ["supported"]
    assert verdicts("Up to ten days may be carried over through the self-service portal to the "
                    "next year.", src) == ["supported"]
    ar = "يجوز ترحيل عشرة أيام إلى السنة التالية."
    assert verdicts("يجوز ترحيل عشرة أيام إلى السنة التالية عبر بوابة الخدمة الذاتية.",
                    ar) == ["check"]
    assert verdicts("يجوز ترحيل عشرة أيام إلى السنة التالية بموافقة المدير.", ar) == ["supported"]


def test_ghair_and_adam_negate_the_word_after_them():
    """«غير» + word was read as one new word, so «غير مدفوعة الأجر» against «مدفوعة الأجر» passed
    (a limit lesson 4 disclosed); it is now a negation of the word, like «لا» before a verb."""
    paid = "يستحق الموظف إجازة مرضية مدفوعة الأجر مدتها 30 يومًا."
    assert verdicts("الإجازة المرضية غير مدفوعة الأجر.", paid) == ["check"]
    assert verdicts("الإجازة المرضية مدفوعة الأجر.", paid) == ["supported"]
    # two ways of saying the same prohibition agree: «لا يُسمح» and «غير مسموح»
    days = "ولا يُسمح بالعمل عن بعد يومي الأحد والخميس."
    assert verdicts("العمل عن بعد غير مسموح به يومي الأحد والخميس.", days) == ["supported"]
    assert verdicts("العمل عن بعد مسموح به يومي الأحد والخميس.", days) == ["check"]
    split = "ولا يجوز تقسيم طلب الشراء إلى طلبات أصغر."
    assert verdicts("تنص السياسة على عدم جواز تقسيم طلب الشراء إلى طلبات أصغر.",
                    split) == ["supported"]
    # for those who are not staff: «لغير الموظفين» against «للموظفين»
    club = "يحق للموظفين دخول النادي مجانًا."
    assert verdicts("يحق لغير الموظفين دخول النادي مجانًا.", club) == ["check"]
    # a word negated on one side only, when both sides also say «لا» elsewhere
    leave = "لا تُحتسب الإجازة غير المدفوعة ضمن سنوات الخدمة."
    assert verdicts("لا تُحتسب الإجازة المدفوعة ضمن سنوات الخدمة.", leave) == ["check"]
    assert verdicts("لا تُحتسب الإجازة غير المدفوعة ضمن سنوات الخدمة.", leave) == ["supported"]
    fee = "The application fee of 40 dollars is non-refundable."
    assert verdicts("The application fee will not be refunded.", fee) == ["supported"]
    assert verdicts("The application fee is refundable.", fee) == ["check"]


@pytest.mark.parametrize("answer, source, expected", [
    ("Sure you can carry over thirty days.", "Staff can carry over up to thirty days.",
     ["not_scored", "supported"]),
    ("Sure you can carry over forty days.", "Staff can carry over up to thirty days.",
     ["not_scored", "check"]),
    ("Of course — reception staff can work remotely two days a week.",
     "Office staff may work remotely two days a week. Reception staff must work on site.",
     ["not_scored", "check"]),      # its words are there, pieced from two sentences
    ("بالطبع يمكنك ترحيل ثلاثين يومًا.", "يمكن للموظف ترحيل ثلاثين يومًا إلى السنة التالية.",
     ["not_scored", "supported"]),
    ("نعم بالتأكيد تُصرف أربعون يومًا.", "يمكن للموظف ترحيل ثلاثين يومًا إلى السنة التالية.",
     ["not_scored", "unsupported"]),
    ("Good question about parking!", "Parking is free.", ["not_scored"]),
    ("Sure thing, happy to help!", "Parking is free.", ["not_scored", "not_scored"]),
    ("نعم بالتأكيد، سأوضح لك ذلك الآن.", "الموقف مجاني.", ["not_scored", "not_scored"]),
])
def test_an_answer_word_opens_a_claim_without_hiding_it(answer, source, expected):
    """'Sure you can …' with no comma took its whole sentence out of the score (round 61); an
    answer word is now set apart and the rest judged. A courtesy that goes on stays unscored."""
    report = f.check(answer, source)
    assert [c.verdict for c in report.claims] == expected


# ------------------------------------------------------------------ no claim
@pytest.mark.parametrize("answer", [
    "Hope this helps!", "Here is a summary of the parking rules.", "Great question!",
    "Let me walk you through the steps.", "Congratulations on the new job!",
    "Welcome aboard, and we're glad you're here!", "Do you need anything else?",
    "شكرًا لسؤالك!", "يسعدني أن أساعدك في ذلك.", "إليك أهم النقاط:", "مرحبًا بك، ونتمنى لك التوفيق!",
    "هل تحتاج إلى مساعدة أخرى؟", "هذه نظرة عامة على سياسة الإجازات.",
])
def test_courtesy_and_framing_make_no_claim(answer):
    report = f.check(answer, SRC)
    assert [s.verdict for s in report.sentences] == ["not_scored"]
    assert report.score is None


def test_framing_before_a_claim_leaves_the_claim_scored():
    report = f.check("Here is the short answer: staff may work from home two days a week.",
                     SRC_EN)
    assert [c.verdict for c in report.claims] == ["not_scored", "supported"]
    assert report.sentences[0].verdict == "supported"


# ------------------------------------------------------------------ our own examples, every kind
EXAMPLES = tomllib.loads(
    (Path(__file__).parent / "data" / "faithfulness_examples.toml").read_text("utf-8"))


@pytest.mark.parametrize("ex", EXAMPLES["example"], ids=lambda ex: f"{ex['source']}-{ex['kind']}")
def test_own_examples(ex):
    got = item_verdict(ex["sentence"], EXAMPLES["sources"][ex["source"]])
    if "known_miss" in ex:                     # a documented limit: it must still miss
        assert got != ex["verdict"], f"fixed? drop known_miss: {ex['sentence']}"
    else:
        assert got == ex["verdict"], ex["sentence"]


def test_own_examples_cover_every_kind_in_both_languages():
    seen = {(ex["kind"], "ar" if re.search("[\u0600-\u06ff]", ex["sentence"]) else "en")
            for ex in EXAMPLES["example"]}
    kinds = {"verbatim", "paraphrase", "invented", "negated", "wrong_value", "pieced",
             "no_claim", "compound"}
    assert seen == {(k, lang) for k in kinds for lang in ("ar", "en")}


# ------------------------------------------------------------------ agreement with human labels
DATA = Path(__file__).parent / "data"


def _targets(items):
    table = agreement_table(items)
    kinds = {k: cell for (k, lang), cell in table.items() if lang == "all" and k != "all"}
    return table[("all", "all")], kinds


@pytest.mark.parametrize("split", ["dev", "heldout"])
def test_agreement_with_the_independent_labels_meets_the_targets(split):
    """Overall agreement >= 0.85 and no kind below 0.70 (aggregates only in the message: the
    held-out items are never printed)."""
    overall, kinds = _targets(load_items(DATA / f"faithfulness_{split}.toml"))
    low = {k: str(c) for k, c in kinds.items() if c.share < 0.70}
    assert overall.share >= 0.85 and not low, f"{split}: all {overall}; below 0.70: {low}"


@pytest.mark.parametrize("split, floor", [("probe_dev", 0.77), ("probe_heldout", 0.72)])
def test_agreement_on_the_hard_probe_set_does_not_fall(split, floor):
    """The probe set (168 items on answer-word openers, negation words, joined claims and modals,
    written and second-read by sessions that never saw the checker) is harder than the general
    sets: 0.64 / 0.65 before the opener, «غير» and added-phrase fixes, 0.80 / 0.75 after. The
    floors guard the gain; the held-out half prints aggregates only."""
    overall, _ = _targets(load_items(LABELLED_SETS[split]))
    assert overall.share >= floor, f"{split}: all {overall}"


def test_the_independent_split_is_the_committed_one():
    dev = load_items(DATA / "faithfulness_dev.toml")
    held = load_items(DATA / "faithfulness_heldout.toml")
    assert len(dev) == len(held) == 120
    assert not {i["id"] for i in dev} & {i["id"] for i in held}
    for items in (dev, held):
        assert {human_verdict(i) for i in items} == {"supported", "unsupported", "no_claim"}


LABELLED = load_items(DATA / "faithfulness_labelled.toml")


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


def test_agreement_on_the_older_set_written_beside_the_checker():
    overall, _ = _targets(LABELLED)
    crude = sum(_crude_verdict(i) == human_verdict(i) for i in LABELLED)
    assert overall.agree > crude
    assert overall.share >= 0.85, str(overall)


def test_wilson_interval():
    lo, hi = wilson(12, 16)
    assert lo == pytest.approx(0.505, abs=1e-3) and hi == pytest.approx(0.898, abs=1e-3)
    assert wilson(0, 0) == (0.0, 1.0)
    assert wilson(16, 16)[1] == 1.0 and wilson(0, 16)[0] == 0.0
