"""The judging pool: the union of the three systems' top k per (question, corpus language)."""

from __future__ import annotations

import tomllib

from retrieval.corpus import Question
from retrieval.pool import build_pool, pool_toml
from tests.retrieval_corpus import indexed

QUESTIONS = (
    Question("q1", "exact", {"ar": "كم يومًا الإجازة السنوية؟", "en": "How long is annual leave?"}),
    Question("q2", "paraphrase", {"ar": "هل أستطيع أن أعمل من البيت؟",
                                  "en": "Can I do my job from my house?"}),
)


def test_pool_is_the_union_of_every_systems_top_k_and_reads_as_toml():
    handbook = {lang: indexed(lang) for lang in ("ar", "en")}
    entries = build_pool(handbook, QUESTIONS, depth=2)
    assert [(e.question.id, e.corpus_lang, e.pairs) for e in entries] == [
        ("q1", "ar", ("ar-ar", "en-ar")), ("q1", "en", ("en-en",)),
        ("q2", "ar", ("ar-ar", "en-ar")), ("q2", "en", ("en-en",))]
    for entry in entries:
        expected = set()
        for question_lang, lang in (("ar", "ar"), ("en", "en"), ("en", "ar")):
            if lang == entry.corpus_lang:
                found = handbook[lang].search(entry.question.text[question_lang], k=2)
                expected |= {h.id for hits in found.values() for h in hits}
        assert entry.passages == tuple(sorted(expected))

    data = tomllib.loads(pool_toml(entries, handbook))
    assert len(data["pool"]) == 4
    first = data["pool"][0]
    assert first["question"] == "q1" and first["question_text"] == QUESTIONS[0].text["ar"]
    assert first["pairs"] == ["ar-ar", "en-ar"]
    assert [p["id"] for p in first["passages"]] == list(entries[0].passages)
    assert first["passages"][0]["text"] == handbook["ar"].corpus[entries[0].passages[0]].text
    assert {p["grade"] for pool in data["pool"] for p in pool["passages"]} == {-1}
