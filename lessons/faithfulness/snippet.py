import re


# en: A "word" is a run of the Arabic letters ء…ي:
# en: a vowel mark splits a word, and digits and
# en: Latin letters are not seen at all.
# ar: الكلمة هنا سلسلة من الحروف العربية ء…ي
# ar: فالحركة تقطع الكلمة، والأرقام والحروف
# ar: اللاتينية لا تُرى أصلًا
def arabic_words(text):
    return set(re.findall(r"[ء-ي]+", text))


# en: Each sentence: the share of its distinct words
# en: found anywhere in the source; supported when
# en: the share reaches the threshold.
# ar: لكل جملة نسبة كلماتها المختلفة الموجودة
# ar: في أي موضع من المصدر، وهي مدعومة
# ar: إذا بلغت النسبة العتبة
def word_overlap_check(answer, source, threshold=0.6):
    source_words = arabic_words(source)
    rows = []
    for sentence in answer.split("."):
        sentence = sentence.strip()
        if not sentence:
            continue
        words = arabic_words(sentence)
        # en: no Arabic word: ZeroDivisionError
        # ar: جملة بلا كلمة عربية تقسم على صفر
        support = len(words & source_words) / len(words)
        rows.append((sentence, support, support >= threshold))
    return rows


# en: Faithfulness: supported ÷ all sentences.
# ar: الأمانة هي الجمل المدعومة ÷ كل الجمل
def faithfulness(rows):
    return sum(supported for _, _, supported in rows) / len(rows)
