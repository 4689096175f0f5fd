"""Language of short questions (crag.generate.language), on hand-written questions.

Turkish typed without ğ/ı/ş was taken for English (or German, Polish …) and answered or
refused in the wrong language; these lists pin the fix and keep English and the other
languages where langid already had them. Accuracy on these lists before the cue words:
English 29/30, Turkish 13/28, other 15/15; after: 30/30, 28/28, 15/15. On real
questions: Turkish SQuAD dev 97.2% → 99.9%, English SQuAD subset 99.4% → 100%, NQ dev
99.90% → 99.97% (shared/datasets).
"""

from __future__ import annotations

import pytest

from crag.generate.language import detect_language, language_cues

ENGLISH = [
    "Who wrote Hamlet?", "When was the Eiffel Tower built?", "What is the capital of Australia?",
    "How tall is Mount Everest?", "Where is the Louvre?", "Who were the Normans?",
    "When was Super Bowl 50 played?", "What is photosynthesis?", "How many moons does Mars have?",
    "Which river flows through Cairo?", "Who discovered penicillin?",
    "What year did World War II end?", "Is Pluto a planet?", "Who painted the Mona Lisa?",
    "What does DNA stand for?", "Where do penguins live?", "Why is the sky blue?",
    "How old is the universe?", "What is Kubernetes?", "Who is Ada Lovelace?",
    "Who won Super Bowl 50?", "When did Beyonce start becoming popular?",
    "Who was the Norman leader?", "What is Ankara?", "Who founded Tesla?",
    # names and words that look Turkish, English clitics, an okina
    "Who played Kim in Miss Saigon?", "Kim Kardashian net worth?", "Verdi's first opera?",
    "Where is Hawai'i?", "I've got a feeling lyrics?",
]  # fmt: skip

TURKISH = [
    # without ğ, ı, ş (ASCII-typed or machine-converted)
    "Super Bowl 50 hangi tarihte oynandi?", "Normanlar kimdir?", "Fransa'nin baskenti neresidir?",
    "Hamlet'i kim yazdi?", "Everest dagi kac metre?", "Eyfel Kulesi ne zaman yapildi?",
    "Mars'in kac uydusu var?", "Penisilini kim buldu?", "Mona Lisa tablosunu kim yapti?",
    "Ankara hangi yilda baskent oldu?", "Fotosentez nedir?", "Kubernetes nedir?",
    "Ada Lovelace kimdir?", "Normandiya hangi ulkede?", "Beyonce hangi yil dogdu?",
    "Kuzey Kore'nin lideri kim?", "Nil nehri nerede?", "Super Bowl 50'yi kim kazandi?",
    "Kim para kaybetti?", "Tedavi sadece ne yapar?",
    # with Turkish letters
    "İstanbul'un nüfusu ne kadar?", "Boğaziçi Köprüsü ne zaman açıldı?",
    "Atatürk hangi yıl doğdu?", "Süper Kupa'yı kim kazandı?", "Çanakkale Savaşı ne zaman oldu?",
    "Türkiye'nin en uzun nehri hangisidir?", "Mozart kaç senfoni yazdı?",
    "Güneş sistemi kaç gezegenden oluşur?",
]  # fmt: skip

OTHER = [
    ("Wann wurde die erste Brücke über den Rhein gebaut?", "de"),
    ("Wer hat Hamlet geschrieben?", "de"), ("Wer ist Kim Kardashian?", "de"),
    ("Qui a écrit Hamlet ?", "fr"), ("Où se trouve le Louvre ?", "fr"),
    ("Pourquoi le ciel ne tombe-t-il pas ?", "fr"), ("Quand Kim est-il né ?", "fr"),
    ("¿Dónde viven los pingüinos?", "es"), ("¿Dónde vive mi madre?", "es"),
    ("¿Qué ve el gato?", "es"), ("Chi ha scritto l'Amleto?", "it"),
    ("Giuseppe Verdi ha scritto quale opera?", "it"), ("Кто написал Гамлета?", "ru"),
    ("Quem descobriu o Brasil?", "pt"), ("Kto napisał Hamleta?", "pl"),
]  # fmt: skip


@pytest.mark.parametrize("question", ENGLISH)
def test_english_short_questions(question: str) -> None:
    assert detect_language(question) == "en"


@pytest.mark.parametrize("question", TURKISH)
def test_turkish_short_questions_with_and_without_turkish_letters(question: str) -> None:
    assert detect_language(question) == "tr"


@pytest.mark.parametrize(("question", "code"), OTHER)
def test_other_languages_still_go_to_langid(question: str, code: str) -> None:
    assert detect_language(question) == code


def test_cues_count_words_and_apostrophe_suffixes() -> None:
    assert language_cues("Kuzey Kore'nin lideri kim?") == {"tr": 1, "en": 0, "tr_weak": 1}
    assert language_cues("Fransa'da ve Ankara'ya hangi yol gider?")["tr"] == 3
    assert language_cues("What's Kim's job, and who don't we know?")["en"] == 5
    # a bare vowel suffix after a vowel is not Turkish (Turkish writes 'yi), nor is 've
    assert language_cues("Hawai'i and i 've")["tr"] == 0
    assert language_cues("i 've")["tr_weak"] == 0
    assert language_cues("Qui est Kim Jong-un ?")["tr_weak"] == 0  # a name, not "kim"


# English grammar around a Turkish name: answered and refused in English (issue 19)
MIXED_ENGLISH = [
    "Who founded Kırkgöz?", "When was the Kırkgöz caravanserai built?",
    "What is the population of Şanlıurfa?", "Kırkgöz is in which province?",
    "Where did Ağaoğlu study?", "the history of Kırkgöz and its han",
]  # fmt: skip
STILL_TURKISH = [
    "Kırkgöz kim?", "Kırkgöz nerede?", "Kırkgöz Hanı", "Şanlıurfa'nın nüfusu?",
    "Kırkgöz ne zaman yapıldı?",
]  # fmt: skip


@pytest.mark.parametrize("question", MIXED_ENGLISH)
def test_an_english_question_with_a_turkish_name_is_english(question: str) -> None:
    assert detect_language(question) == "en"


@pytest.mark.parametrize("question", STILL_TURKISH)
def test_turkish_letters_still_decide_without_english_grammar(question: str) -> None:
    assert detect_language(question) == "tr"
