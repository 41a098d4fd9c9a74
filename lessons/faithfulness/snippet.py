import re


# en: A "word" is a run of the Arabic letters ء…ي: a vowel mark
# en: splits a word; digits and Latin letters are not seen at all.
# ar: «الكلمة» سلسلة من الحروف العربية ء…ي: الحركة تقطع الكلمة،
# ar: والأرقام والحروف اللاتينية لا تُرى أصلًا.
def arabic_words(text):
    return set(re.findall(r"[ء-ي]+", text))


# en: Each sentence: the share of its distinct words found
# en: anywhere in the source; at least the threshold = supported.
# ar: لكل جملة: نسبة كلماتها المختلفة الموجودة في أي موضع
# ar: من المصدر؛ فإن بلغت العتبة فهي مدعومة.
def word_overlap_check(answer, source, threshold=0.6):
    source_words = arabic_words(source)
    rows = []
    for sentence in answer.split("."):
        sentence = sentence.strip()
        if not sentence:
            continue
        words = arabic_words(sentence)
        # en: no Arabic word in the sentence: ZeroDivisionError
        # ar: جملة بلا كلمة عربية: قسمة على صفر
        support = len(words & source_words) / len(words)
        rows.append((sentence, support, support >= threshold))
    return rows


# en: Faithfulness: supported sentences ÷ all sentences.
# ar: الأمانة: الجمل المدعومة ÷ كل الجمل.
def faithfulness(rows):
    return sum(supported for _, _, supported in rows) / len(rows)
