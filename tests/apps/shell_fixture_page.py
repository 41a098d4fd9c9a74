"""A stand-in lesson page for the shell tests (added with MIZAN_EXTRA_PAGES).

Exercises the shared helpers the way a lesson does: header, sections, a URL-state field
with a widget, metric cards, an answer block, and every Streamlit element whose RTL
styling matters (slider, radio, number input, table, dataframe, chart, code, math).
"""

import pandas as pd
import streamlit as st

from runtime import state
from text.i18n import current_lang
from ui import layout

TEXT = {
    "ar": {
        "title": "صفحة اختبار: الاستدعاء recall@k",
        "summary": "مثال: recall@3 = 1 / 2 = 0.5 والخصم 1/log2(3) ≈ 0.63 والمجموعة {d2, d4}.",
        "core": "المرتبة الأولى لـ `d7` ثم d2 في المرتبة 2، أي RR = 1/2 = 0.5 (أي النصف).",
        "echo": "ما كتبته: {{typed}}",
        "answer": "الإجابة: precision@3 = 1/3 ≈ 0.33",
        "k": "عدد النتائج k",
        "metric": "الاستدعاء recall@k",
    },
    "en": {
        "title": "Test page: recall@k",
        "summary": "Example: recall@3 = 1 / 2 = 0.5, discount 1/log2(3) ≈ 0.63, set {d2, d4}.",
        "core": "Rank 1 is `d7`, then d2 at rank 2, so RR = 1/2 = 0.5 (one half).",
        "echo": "You typed: {{typed}}",
        "answer": "Answer: precision@3 = 1/3 ≈ 0.33",
        "k": "Number of results k",
        "metric": "Recall recall@k",
    },
}
FIELDS = {
    "k": state.int_field(3, lo=1, hi=5),
    "r": state.ranking_field((("d7", 0), ("d2", 1), ("d9", 0), ("d4", 1), ("d1", 0))),
    "q": state.Field("", lambda raw: raw[:200], str),
}

tx = TEXT[current_lang()]
s = state.url_state("fixture", FIELDS)
layout.lesson_header({"title": tx["title"], "summary": tx["summary"]})
with st.container(key="fixture-core"):
    layout.markdown(tx["core"])
    layout.markdown(tx["echo"], {"typed": s["q"]})
k = st.slider(tx["k"], 1, 5, value=s["k"], key=s.key("k"))
s.set(k=k)
relevant = [d for d, g in s["r"] if g]
hits = sum(1 for d, g in s["r"][:k] if g)
layout.metric_row([(tx["metric"], hits / len(relevant), f"recall@{k} = {hits} / {len(relevant)}")])
layout.answer_block("fixture", tx["answer"])
st.radio("k?", [1, 3, 5], horizontal=True, key="fixture-radio")
st.number_input("k", 1, 5, 3, key="fixture-number")
st.dataframe(pd.DataFrame({"doc": [d for d, _ in s["r"]], "rel": [g for _, g in s["r"]]}))
st.vega_lite_chart(
    {
        "mark": "bar",
        "data": {"values": [{"rank": i + 1, "w": 1 / (i + 1)} for i in range(5)]},
        "encoding": {
            "x": {"field": "rank", "type": "ordinal"},
            "y": {"field": "w", "type": "quantitative"},
        },
    },
    width="stretch",
)
st.code("recall_at_k = hits / len(relevant)", language="python")
st.latex(r"\mathrm{DCG@k} = \sum_{i=1}^{k} \frac{rel_i}{\log_2(i+1)}")
with layout.friendly_errors("fixture"):
    if st.query_params.get("boom") == "1":
        raise RuntimeError("fixture failure")
