"""The practice hub's plain functions: decks from every lesson, stable ids, quiz rounds."""

from __future__ import annotations

from lessons.practice import logic
from teaching import progress as pg
from teaching.exercises import texts as exercise_texts
from text.i18n import load_content


def test_decks_gather_every_lesson_in_both_languages_with_shared_ids():
    for lang in ("ar", "en"):
        cards, myths = logic.cards(lang), logic.myths(lang)
        expected = sum(len(load_content(f, lang).get("cards", {}).get("items", []))
                       for f in logic.lesson_folders())
        assert len(cards) == expected and expected > 20
        assert len({c.id for c in cards}) == len(cards)  # unique
        assert len({m.id for m in myths}) == len(myths) > 20
        assert all(c.front and c.back for c in cards)
    assert [c.id for c in logic.cards("ar")] == [c.id for c in logic.cards("en")]
    assert [m.id for m in logic.myths("ar")] == [m.id for m in logic.myths("en")]
    assert all(pg._ID.fullmatch(c.id) for c in logic.cards("en"))  # storable ids


def test_quiz_pool_has_every_lessons_items_and_valid_ids():
    pool = logic.quiz_pool("en")
    assert {folder for folder, _ in pool} == set(logic.lesson_folders())
    ids = [item["id"] for _, item in pool]
    assert len(set(ids)) == len(ids) and all(pg._ID.fullmatch(i) for i in ids)


def test_quiz_round_wrong_first_then_new_then_right_and_stable_per_seed():
    ids = [f"q{n}" for n in range(12)]
    p = pg.record_quiz(pg.Progress(), "q3", "0", False, 1)
    p = pg.record_quiz(p, "q5", "1", True, 1)
    p = pg.record_quiz(p, "q7", "1", False, 2)
    first = logic.quiz_round(p, ids, seed=4)
    assert set(first[:2]) == {"q3", "q7"} and len(first) == logic.QUIZ_ROUND
    assert "q5" not in first
    assert logic.quiz_round(p, ids, seed=4) == first
    everything = logic.quiz_round(p, ids, seed=4, size=len(ids))
    assert everything[-1] == "q5" and sorted(everything) == sorted(ids)


def test_mastery_table_keeps_numbers_left_to_right():
    p = pg.record_exercise(pg.Progress(), "precision", True, 1)
    p = pg.record_exercise(p, "precision", False, 2)
    head = load_content("practice", "en")["progress"]["labels"]
    names = exercise_texts("en")["names"]
    table = logic.mastery_table(p, ("precision", "recall"), names, head)
    assert "| precision@k | 1/2 | 0 | practising |" in table
    assert "| recall@k | 0/0 | 0 | not started |" in table


def test_today_falls_back_to_utc_for_an_unknown_zone():
    assert logic.today("Not/AZone") == logic.today(None)
