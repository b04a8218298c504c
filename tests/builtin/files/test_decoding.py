"""Decoding at the byte level: BOMs, strict UTF-8, binary detection, fallbacks."""

from __future__ import annotations

import codecs

import pytest

from toolproof.builtin.files.decoding import DecodeError, decode, label, newline_style


@pytest.mark.parametrize(
    ("data", "encoding", "bom"),
    [
        (codecs.BOM_UTF8 + "héllo".encode(), "utf-8", True),
        (codecs.BOM_UTF16_LE + "héllo".encode("utf-16-le"), "utf-16le", True),
        (codecs.BOM_UTF16_BE + "héllo".encode("utf-16-be"), "utf-16be", True),
        (codecs.BOM_UTF32_LE + "héllo".encode("utf-32-le"), "utf-32le", True),
        (codecs.BOM_UTF32_BE + "héllo".encode("utf-32-be"), "utf-32be", True),
        ("héllo".encode(), "utf-8", False),
    ],
)
def test_a_bom_decides_and_is_stripped(data: bytes, encoding: str, bom: bool) -> None:
    decoded = decode(data)

    assert (decoded.text, decoded.encoding, decoded.bom) == ("héllo", encoding, bom)


def test_dense_cjk_and_emoji_are_never_binary() -> None:
    text = "我" * 171 + "🚀" * 300 + "界" * 5000

    assert decode(text.encode()).text == text


def test_utf16_without_bom_is_recognised() -> None:
    decoded = decode("plain ascii text in utf-16\n".encode("utf-16-le"))

    assert decoded.encoding == "utf-16le"
    assert decoded.text == "plain ascii text in utf-16\n"


def test_nul_bytes_make_a_file_binary_even_when_valid_utf8() -> None:
    with pytest.raises(DecodeError) as info:
        decode(b"abc\x00def")

    assert info.value.reason == "binary"


def test_an_image_is_binary() -> None:
    with pytest.raises(DecodeError) as info:
        decode(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01")

    assert info.value.reason == "binary"


def test_legacy_single_byte_text_is_detected() -> None:
    decoded = decode("café crème brûlée\n".encode("cp1252"))

    assert (decoded.text, decoded.encoding) == ("café crème brûlée\n", "windows-1252")


@pytest.mark.parametrize(
    "text",
    [
        "café\n",
        "Müller\n",
        "résumé\n",
        "5 €\n",
        "Straße\n",
        "He said “hello” – then left.\n",  # noqa: RUF001 (the point: cp1252 punctuation)
        "Die Straße führt über die Brücke zum Schloß. Müller wählt Käse.\n",
        "Le château est très beau, où est la forêt? Ça va très bien, naïve élève.\n",
        "A situação da população é difícil, não há solução.\n",
    ],
)
def test_a_few_accented_letters_in_latin_text_read_as_windows_1252(text: str) -> None:
    decoded = decode(text.encode("cp1252"))  # short samples once came back as Cyrillic: "cafй", "Mьller", "5 Ђ"

    assert (decoded.text, decoded.encoding) == (text, "windows-1252")


@pytest.mark.parametrize(
    ("text", "encoding"),
    [
        ("Zażółć gęślą jaźń. Wszystko będzie dobrze, powiedział Łukasz w Łodzi.\n", "cp1250"),
        ("Příliš žluťoučký kůň úpěl ďábelské ódy. Čeština je krásný jazyk.\n", "cp1250"),
        ("Türkçe çok güzel bir dildir. İstanbul'da yaşıyorum ve çalışıyorum.\n", "cp1254"),  # noqa: RUF001
        ("Καλημέρα κόσμε, αυτό είναι ένα δοκιμαστικό αρχείο.\n", "cp1253"),
        ("Привет, как дела? Это тестовый файл для проверки кодировки.\n", "cp1251"),
        ("こんにちは世界、これはテストファイルです。日本語の文章。\n", "cp932"),
        ("你好世界，这是一个测试文件。中文编码检测。\n", "gb18030"),  # noqa: RUF001
    ],
)
def test_other_code_pages_are_not_taken_for_windows_1252(text: str, encoding: str) -> None:
    assert decode(text.encode(encoding)).text == text


def test_a_stray_byte_in_utf8_text_is_replaced_not_read_as_latin1() -> None:
    text = "日本語の文章です。" * 20 + "\n"
    data = text.encode()
    decoded = decode(data[:30] + b"\xff" + data[30:])

    assert decoded.encoding == "utf-8"
    assert decoded.text == text[:10] + "\ufffd" + text[10:]


def test_legacy_text_is_not_taken_for_utf8_with_replacements() -> None:
    text = "Voilà: «déjà vu», Ã© (a pair that is valid UTF-8 by chance), naïve, façade.\n"

    assert decode(text.encode("cp1252")).text == text


def test_cyrillic_code_page_is_detected() -> None:
    text = "Привет, мир! Это тест кодировки, достаточно длинный для уверенности.\n"

    assert decode(text.encode("cp1251")).text == text


def test_utf8_only_refuses_other_encodings() -> None:
    with pytest.raises(DecodeError) as info:
        decode("café".encode("cp1252"), utf8_only=True)
    with pytest.raises(DecodeError) as bom:
        decode(codecs.BOM_UTF16_LE + "x".encode("utf-16-le"), utf8_only=True)

    assert info.value.reason == "not_utf8"
    assert info.value.detail == "the file is not valid UTF-8 (invalid byte at offset 3)"
    assert bom.value.reason == "not_utf8"


def test_utf8_only_still_accepts_a_utf8_bom() -> None:
    assert decode(codecs.BOM_UTF8 + b"ok", utf8_only=True).text == "ok"


@pytest.mark.parametrize(
    ("text", "style"),
    [("a\nb\n", "lf"), ("a\r\nb\r\n", "crlf"), ("a\rb\r", "cr"), ("a\r\nb\n", "mixed"), ("ab", "none"), ("", "none")],
)
def test_newline_style_is_reported(text: str, style: str) -> None:
    assert newline_style(text) == style
    assert decode(text.encode()).newline == style


@pytest.mark.parametrize("utf8_only", [False, True])
def test_a_nul_past_the_sample_in_bytes_that_are_not_utf8_makes_them_binary(utf8_only: bool) -> None:
    data = "café\n".encode("cp1252") * 20_000 + b"\x00\x01\x02"  # 100 KB of legacy text, then binary

    with pytest.raises(DecodeError) as info:
        decode(data, utf8_only=utf8_only)

    assert info.value.reason == "binary"


def test_mostly_utf8_with_a_nul_is_binary_not_text_with_a_nul() -> None:
    data = ("日本語の文章です。" * 20_000).encode() + b"\xff\x00"

    with pytest.raises(DecodeError) as info:
        decode(data)

    assert info.value.reason == "binary"


@pytest.mark.parametrize(
    ("data", "text", "encoding"),
    [
        # The detector names Romanian but answers cp775 (Baltic DOS): not Romanian's code page.
        (
            b"plain ascii line\n" * 40 + b"a na\xefve idea\n",
            "plain ascii line\n" * 40 + "a naïve idea\n",
            "windows-1252",
        ),
        # Turkish: Windows-1252 would read its dotless i, dotted I, s and g as Icelandic letters.
        (
            b"G\xfcnayd\xfdn, nas\xfdls\xfdn\xfdz? \xddyi g\xfcnler.\n",
            "Günaydın, nasılsınız? İyi günler.\n",  # noqa: RUF001
            "windows-1254",
        ),
    ],
    ids=["english-named-romanian-in-cp775", "short-turkish"],
)
def test_a_detectors_latin_guess_is_taken_only_with_its_languages_code_page(
    data: bytes, text: str, encoding: str
) -> None:
    decoded = decode(data)

    assert (decoded.text, decoded.encoding) == (text, encoding)


def test_a_utf8_bom_before_bytes_that_are_not_utf8_keeps_utf8_with_replacements() -> None:
    data = codecs.BOM_UTF8 + b"caf\xe9 au lait\n"

    assert decode(data).text == "caf\ufffd au lait\n"  # as a window of the same file reads it
    with pytest.raises(DecodeError) as info:
        decode(data, utf8_only=True)
    assert info.value.reason == "undecodable"


@pytest.mark.parametrize(
    ("name", "whatwg"),
    [
        ("utf_8", "utf-8"),
        ("utf-16-le", "utf-16le"),
        ("cp1252", "windows-1252"),
        ("windows-1252", "windows-1252"),
        ("cp1251", "windows-1251"),
        ("cp932", "shift_jis"),
        ("euc_kr", "euc-kr"),
        ("iso8859_2", "iso-8859-2"),
        ("latin-1", "iso-8859-1"),
        ("utf-32-be", "utf-32be"),
    ],
)
def test_an_encoding_is_named_by_its_whatwg_label_not_by_pythons_codec_name(name: str, whatwg: str) -> None:
    assert label(name) == whatwg


def test_a_legacy_file_reports_the_label_every_language_knows() -> None:
    assert decode("café crème brûlée\n".encode("cp1252")).encoding == "windows-1252"
