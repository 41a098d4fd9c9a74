"""Your own corpus: parsing and chunking uploaded text, Markdown and CSV files."""

from __future__ import annotations

import gzip

import pytest

from metrics.errors import FormatError
from retrieval.engine import Retrievers
from retrieval.errors import CorpusError
from retrieval.upload import MAX_BYTES, MAX_PASSAGES, Chunking, parse_upload

MARKDOWN = """Text before any heading.

# الإجازات

يحق للموظف إجازة سنوية مدتها ثلاثون يومًا. تُطلب قبل أسبوعين؟ نعم، عبر البوابة!
ويُستكمل الطلب بتوقيع المدير.

الإجازة المرضية تحتاج تقريرًا طبيًا.

## Remote work ##
Staff may work from home two days a week. Dr. Smith approves it. It costs 2.5 hours.
"""


def _ids(upload):
    return [p.id for p in upload.corpus.passages]


def _error(data, name, chunking=None, **limits):
    with pytest.raises(FormatError) as info:
        parse_upload(data, name, chunking or Chunking(), **limits)
    return info.value


# ---------------------------------------------------------------- formats and ids
def test_markdown_sections_are_documents_and_paragraphs_passages():
    upload = parse_upload(MARKDOWN.encode(), "handbook.md")
    c = upload.corpus
    assert upload.kind == "markdown" and c.name == "handbook.md"
    assert _ids(upload) == ["d01", "d02.1", "d02.2", "d03"]
    assert [p.title for p in c.passages] == ["", "الإجازات", "الإجازات", "Remote work"]
    assert [p.line for p in c.passages] == [1, 5, 8, 11]
    assert c["d02.1"].text.endswith("بتوقيع المدير.")   # a paragraph's lines stay together
    assert c.documents == {"d01": "d01", "d02.1": "d02", "d02.2": "d02", "d03": "d03"}


def test_sentence_chunking_in_arabic_and_english():
    upload = parse_upload(MARKDOWN.encode(), "handbook.md", Chunking("sentences", 2))
    c = upload.corpus
    assert c["d02.1"].text == "يحق للموظف إجازة سنوية مدتها ثلاثون يومًا. تُطلب قبل أسبوعين؟"
    assert c["d02.2"].text == "نعم، عبر البوابة!\nويُستكمل الطلب بتوقيع المدير."
    assert c["d02.2"].line == 5 and c["d02.3"].line == 8
    # "Dr." and "2.5" do not end a sentence.
    assert c["d03.1"].text == "Staff may work from home two days a week. Dr. Smith approves it."
    assert c["d03.2"].text == "It costs 2.5 hours."
    one = parse_upload(MARKDOWN.encode(), "handbook.md", Chunking("sentences", 1)).corpus
    assert len(one) > len(c) > len(parse_upload(MARKDOWN.encode(), "handbook.md").corpus)


def test_text_paragraphs_are_documents_with_any_line_ends():
    upload = parse_upload(b"\xef\xbb\xbffirst\nstill first\r\n\r\n\rsecond\rthird\n\n", "a.TXT")
    assert upload.kind == "text"
    assert [(p.id, p.text, p.line) for p in upload.corpus.passages] == [
        ("d01", "first\nstill first", 1), ("d02", "second\nthird", 5)]


def test_csv_columns_by_name_doc_groups_rows_and_empty_texts_are_skipped():
    data = (b"ID;Title;Text;Document\n"
            b"a1;Leave;\"Thirty days; paid.\nAfter a year.\";leave\n"
            b"a2;Sick;;leave\n"
            b"\n"
            b"a3;Sick;A medical report after three days.;leave\n")
    upload = parse_upload(data, "rows.csv")
    c = upload.corpus
    assert _ids(upload) == ["a1", "a3"]
    assert c["a1"].text == "Thirty days; paid.\nAfter a year."
    assert c["a1"].title == "Leave" and c["a3"].line == 6
    assert c.documents == {"a1": "leave", "a3": "leave"}
    assert upload.skipped_lines == (4,)
    split = parse_upload(data, "rows.csv", Chunking("sentences", 1)).corpus
    assert [p.id for p in split.passages] == ["a1.1", "a1.2", "a3"]


def test_tsv_and_arabic_headers_without_ids():
    data = "العنوان\tالنص\nالإجازة\tثلاثون يومًا\nالأمن\tكلمة المرور\n".encode()
    c = parse_upload(data, "x.tsv").corpus
    assert [(p.id, p.title, p.text) for p in c.passages] == [
        ("d01", "الإجازة", "ثلاثون يومًا"), ("d02", "الأمن", "كلمة المرور")]


def test_a_single_text_column_needs_no_separator():
    c = parse_upload(b"text\nfirst passage, with a comma\nsecond\n", "one.csv").corpus
    assert [p.text for p in c.passages] == ["first passage, with a comma", "second"]


def test_mixed_languages_are_indexed_and_found_in_each_language():
    data = ("Annual leave is thirty days.\n\n"
            "العمل عن بعد مسموح يومين في الأسبوع.\n\n"
            "Passwords change every 90 days — كلمة المرور تتغير كل تسعين يومًا.\n").encode()
    systems = Retrievers.build(parse_upload(data, "mixed.txt").corpus)
    assert systems.search("annual leave")["bm25"][0].id == "d01"
    assert systems.search("العمل عن بعد")["bm25"][0].id == "d02"
    assert [h.id for h in systems.search("كلمة المرور")["bm25"]] == ["d03"]
    assert [h.id for h in systems.search("passwords")["bm25"]] == ["d03"]


# ---------------------------------------------------------------- bad files
def test_empty_and_blank_files():
    assert _error(b"", "a.txt").key == "empty_file"
    assert _error(b"  \n\r\n\t", "a.md").key == "empty_file"
    assert _error(b"# Only a heading\n\n## And another\n", "a.md").key == "no_passages"
    assert _error(b"text\n", "a.csv").key == "no_rows"
    assert _error(b"\n\n", "a.csv").key == "empty_file"


@pytest.mark.parametrize(("data", "key"), [
    (b"%PDF-1.7 ...", "binary_file"),
    (b"PK\x03\x04 a docx", "binary_file"),
    (gzip.compress(b"x", mtime=0)[:-3], "binary_file"),     # a cut gzip stream
    (b"\x89PNG\r\n\x1a\n", "binary_file"),
    ("نص".encode("utf-16"), "utf16"),
    (b"caf\xe9 latin-1\n", "not_utf8"),
], ids=["pdf", "docx", "cut-gzip", "png", "utf16", "latin1"])
def test_binary_and_wrongly_encoded_files(data, key):
    err = _error(data, "a.txt")
    assert err.key == key
    assert str(err)


def test_a_bad_byte_is_reported_on_its_line():
    err = _error("سطر أول\n\nسطر ثالث \xff".encode("utf-8", "surrogateescape")[:-2] + b"\xff",
                 "a.txt")
    assert (err.key, err.line) == ("not_utf8", 3)


def test_a_gzip_compressed_text_is_read():
    assert parse_upload(gzip.compress("نص".encode()), "a.txt").corpus["d01"].text == "نص"


def test_too_large():
    err = _error(b"x" * (MAX_BYTES + 1), "big.txt")
    assert (err.key, err.params["limit"]) == ("too_large", MAX_BYTES)
    assert parse_upload(b"x" * 100, "small.txt").corpus.passages[0].text == "x" * 100


def test_too_many_passages_names_the_first_one_over():
    data = "\n\n".join(f"passage {i}." for i in range(MAX_PASSAGES + 5)).encode()
    err = _error(data, "many.txt")
    assert err.key == "too_many_passages"
    assert err.params == {"count": MAX_PASSAGES + 5, "limit": MAX_PASSAGES}
    assert err.line == 2 * MAX_PASSAGES + 1
    # the limit counts passages after chunking
    two = b"One. Two. Three.\n\nFour."
    assert len(parse_upload(two, "a.txt", max_passages=2).corpus) == 2
    assert _error(two, "a.txt", Chunking("sentences", 1), max_passages=2).params["count"] == 4


def test_csv_without_a_text_column():
    err = _error(b"id,title,body_text\n1,a,b\n", "a.csv")
    assert (err.key, err.line, err.params["column"]) == ("missing_column", 1, "text")
    assert err.params["found"] == ["id", "title", "body_text"]
    assert "text" in err.params["accepted"]


def test_csv_row_errors_carry_their_line():
    assert (_error(b"id,text\n\n1,a\n2,b,extra\n", "a.csv").key,
            _error(b"id,text\n\n1,a\n2,b,extra\n", "a.csv").line) == ("wrong_column_count", 4)
    err = _error(b"id,text\n1,a\n1,b\n", "a.csv")
    assert (err.key, err.line, err.params) == ("duplicate_id", 3, {"id": "1", "first_line": 2})
    err = _error(b"id,text\nx y,a\n", "a.csv")
    assert (err.key, err.line, err.params) == ("bad_id", 2, {"id": "x y"})
    err = _error(b"id,text\n,a\n", "a.csv")
    assert (err.key, err.line, err.params) == ("empty_id", 2, {"column": "id"})
    err = _error(b'text\n"' + b"x" * 200_000 + b'"\n', "a.csv")
    assert err.key == "unknown_format"


def test_unsupported_file_type():
    err = _error(b"hello", "slides.pptx")
    assert err.key == "unsupported_file" and err.params["name"] == "slides.pptx"
    assert isinstance(err, CorpusError) and ".md" in str(err)


def test_every_error_has_an_english_message():
    for data, name in [(b"", "a.txt"), (b"x", "a.doc"), (b"id,text\n1,a\n1,b\n", "a.csv"),
                       (b"# h\n", "a.md")]:
        message = str(_error(data, name))
        assert message and "{" not in message


@pytest.mark.parametrize(("mode", "size"), [("words", 3), ("sentences", 0), ("sentences", 1.5)])
def test_bad_chunking_is_a_programming_error(mode, size):
    with pytest.raises(ValueError):
        Chunking(mode, size)
