"""A small bilingual handbook for the retrieval tests (written for them, not the bundled one), and
the tie rule in plain Python that rankings are checked against."""

from __future__ import annotations

from functools import cache

from retrieval.corpus import Corpus, Passage
from retrieval.engine import Retrievers
from retrieval.ranking import Hit

ROWS = [
    # id, doc, title (ar, en), text (ar, en)
    ("p01", "leave", ("الإجازة السنوية", "Annual leave"),
     ("يحق للموظف إجازة سنوية مدفوعة الأجر مدتها ثلاثون يومًا بعد سنة كاملة من الخدمة.",
      "Employees get thirty days of paid annual leave after one full year of service.")),
    ("p02", "leave", ("الإجازة المرضية", "Sick leave"),
     ("تتطلب الإجازة المرضية التي تزيد على ثلاثة أيام تقريرًا طبيًا معتمدًا.",
      "Sick leave longer than three days requires a certified medical report.")),
    ("p03", "remote", ("العمل عن بعد", "Remote work"),
     ("يجوز العمل من المنزل يومين في الأسبوع بعد موافقة المدير المباشر.",
      "Staff may work from home two days a week with their manager's approval.")),
    ("p04", "security", ("كلمات المرور", "Passwords"),
     ("يجب تغيير كلمة المرور كل تسعين يومًا، ولا يجوز مشاركتها مع أحد.",
      "Passwords must be changed every 90 days and never shared with anyone.")),
    ("p05", "expenses", ("المصروفات", "Expenses"),
     ("تُسترد مصروفات السفر خلال ثلاثين يومًا من تقديم الإيصالات الأصلية.",
      "Travel expenses are reimbursed within thirty days of submitting the original receipts.")),
    ("p06", "training", ("التدريب", "Training"),
     ("لكل موظف ميزانية تدريب سنوية قدرها ألفا ريال للدورات المعتمدة.",
      "Each employee has an annual training budget of 2,000 riyals for approved courses.")),
]


def corpus(lang: str) -> Corpus:
    i = 0 if lang == "ar" else 1
    return Corpus(tuple(Passage(pid, text[i], doc=doc, title=title[i])
                        for pid, doc, title, text in ROWS), lang, name="test")


@cache
def indexed(lang: str) -> Retrievers:
    """The test corpus with its three retrievers, built once per test process."""
    return Retrievers.build(corpus(lang))


def by_the_rule(ids, scores, k=None) -> list[Hit]:
    """The tie rule in plain Python (``retrieval.ranking.rank`` is checked against it): id
    descending, then a stable sort by score descending (equal ids keep their input order)."""
    order = sorted(range(len(ids)), key=lambda i: ids[i], reverse=True)
    order.sort(key=lambda i: -scores[i])
    return [Hit(ids[i], float(scores[i]), r) for r, i in enumerate(order[:k], start=1)]
