#!/usr/bin/python3
"""recnotes serve's page in headless Chromium (Debian's chromium, chromium-driver and
python3-selenium, which are for /usr/bin/python3).

Run by Tests/EndToEndTests/ServeBrowserTests.swift against a server it started on a store it
made with the CLI: /Talks/budget talk (8 s, markers at 3 s "budget" and 6 s "wrap up", a
transcript whose third line, "zebra crossing ahead", starts at 4.5 s), /memo (transcribed: no words), and two recordings whose audio is not here: /old take (dropped after
a sync; its copy is on the remote hub) and /lost take (its file gone). The store syncs. Each check
looks at the page's real DOM and the <audio> element's real state; the script prints one line
a check and ends with 'N passed, N failed', status 1 when any failed.
"""

import argparse
import json
import os
import subprocess
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import NoSuchElementException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from checks import Checks

parser = argparse.ArgumentParser()
parser.add_argument("--url", required=True, help="the URL the server printed")
parser.add_argument("--recnotes", required=True, help="the recnotes binary, for a change from another process")
parser.add_argument("--store", required=True)
parser.add_argument("--home", required=True)
parser.add_argument("--screenshots", help="a directory for the four screenshots")
args = parser.parse_args()
base = args.url.rstrip("/")

options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
for flag in ["--headless=new", "--autoplay-policy=no-user-gesture-required", "--no-sandbox",
             "--disable-dev-shm-usage", "--window-size=1280,900", "--mute-audio"]:
    options.add_argument(flag)
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
driver.set_page_load_timeout(30)

checks = Checks(driver)
check = checks.check
until = checks.until


def names():
    return [a.text for a in driver.find_elements(By.CSS_SELECTOR, "#items li a.name")]


def row_text(name):
    """The text of the list's row of the item `name`."""
    for li in driver.find_elements(By.CSS_SELECTOR, "#items li"):
        if li.find_elements(By.CSS_SELECTOR, "a.name") and li.find_element(By.CSS_SELECTOR, "a.name").text == name:
            return li.text
    raise AssertionError(f"no row {name!r} in {names()}")


def audio(prop):
    return driver.execute_script(f"const a = document.getElementById('player'); return a ? a.{prop} : null;")


def click(selector):
    element = until(f"{selector} to be shown", lambda: driver.find_element(By.CSS_SELECTOR, selector))
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()


def at(seconds, slack):
    """The play head near `seconds`: at it, or playing a little past it."""
    until(f"the play head at {seconds} s (it is at {audio('currentTime')})",
          lambda: seconds - 0.05 <= (audio("currentTime") or 0) <= seconds + slack)


def library_lists_recordings():
    driver.get(base + "/")
    until("the root's items", lambda: "Talks/" in names() and "memo" in names())
    memo = row_text("memo")
    assert "¶" not in memo, f"a transcript mark on {memo!r}, whose transcript is empty"
    click("#items a[href='/?path=%2FTalks']")
    until("/Talks's items", lambda: names() == ["budget talk"])
    row = driver.find_element(By.CSS_SELECTOR, "#items li").text
    assert "0:08" in row, f"no duration in {row!r}"
    assert "◆2" in row, f"no marker mark in {row!r}"
    assert "¶" in row, f"no transcript mark in {row!r}"
    assert "work" in row and "the quarterly budget" in row, f"no tag or note in {row!r}"


def clicking_a_recording_plays_it():
    driver.find_element(By.LINK_TEXT, "budget talk").click()
    until("the recording's page", lambda: driver.find_element(By.TAG_NAME, "h1").text == "budget talk")
    assert driver.current_url.startswith(base + "/r/"), driver.current_url
    click("#play")
    until("playing", lambda: audio("paused") is False)
    start = audio("currentTime")
    until("currentTime to advance", lambda: audio("currentTime") > start + 0.3, timeout=10)


def a_marker_seeks():
    click("#markers button[data-seconds='6']")
    at(6, 1.5)
    click("#markers button[data-seconds='3']")
    at(3, 1.5)


def a_transcript_line_seeks_and_is_lit():
    lines = driver.find_elements(By.CSS_SELECTOR, "#transcript li")
    assert [li.text.split(" ", 1)[1] for li in lines] == ["hello there", "the budget is large",
                                                         "zebra crossing ahead"], [li.text for li in lines]
    click("#transcript li:nth-child(3) a")
    at(4.5, 1.5)
    until("the third line lit", lambda: "now" in lines[2].get_attribute("class").split())
    assert "now" not in (lines[0].get_attribute("class") or ""), "the first line is lit too"


def speed_sets_playback_rate():
    Select(driver.find_element(By.ID, "speed")).select_by_value("1.5")
    until("playbackRate 1.5", lambda: audio("playbackRate") == 1.5)
    Select(driver.find_element(By.ID, "speed")).select_by_value("0.75")
    until("playbackRate 0.75", lambda: audio("playbackRate") == 0.75)


def search_lands_on_the_moment():
    driver.get(base + "/")
    until("the root's items", lambda: "memo" in names())
    box = driver.find_element(By.NAME, "text")
    box.send_keys("zebra")
    box.submit()
    until("a hit", lambda: driver.find_elements(By.CSS_SELECTOR, "#hits a.name"))
    hits = driver.find_elements(By.CSS_SELECTOR, "#hits a.name")
    assert [h.text for h in hits] == ["budget talk"], [h.text for h in hits]
    assert hits[0].get_attribute("href").endswith("#t=4.5"), hits[0].get_attribute("href")
    hits[0].click()
    until("the recording's page", lambda: driver.find_element(By.TAG_NAME, "h1").text == "budget talk")
    at(4.5, 2)


def a_change_elsewhere_shows_without_a_reload():
    driver.get(base + "/")
    until("the root's items", lambda: "memo" in names())
    until("the live stream open", lambda: driver.execute_script("return document.body.dataset.live") == "1")
    driver.execute_script("window.sameDocument = 'yes'")
    environment = dict(os.environ, HOME=args.home, NO_COLOR="1", TZ="UTC")
    subprocess.run([args.recnotes, "--store", args.store, "mkdir", "/Fresh"], check=True, env=environment)
    until("Fresh/ listed", lambda: "Fresh/" in names(), timeout=10)
    assert driver.execute_script("return window.sameDocument") == "yes", "the page was reloaded"


def live_words_show_while_recording():
    # What the transcriber of a recording in progress writes: a segment a line, added to as
    # it hears more (the recorder's side is Tests/EndToEndTests/LiveWordsTests.swift).
    driver.get(base + "/")
    until("the live stream open", lambda: driver.execute_script("return document.body.dataset.live") == "1")
    memo = uuid_of("/memo")
    live = os.path.join(args.store, "cache", "live")
    os.makedirs(live, exist_ok=True)
    words = os.path.join(live, memo + ".words")
    shown = lambda: driver.execute_script(
        "const p = document.getElementById('live-words'); return p.hidden ? null : p.textContent")
    for start, text in [(0.5, "first words heard"), (2.0, "and then some more")]:
        with open(words, "a") as f:
            f.write(json.dumps({"start": start, "end": start + 1, "text": text}) + "\n")
    until("the words so far", lambda: shown() == "first words heard and then some more", timeout=10)
    # Its transcript saved (nothing heard in it, as before): the words are done with.
    os.unlink(words)
    silent = os.path.join(args.home, "silent-engine")
    with open(silent, "w") as f:
        f.write("#!/bin/sh\necho '{\"transcription\": []}'\n")
    os.chmod(silent, 0o755)
    cli("transcribe", "/memo", "--force", "--engine", silent)
    until("the live words gone", lambda: shown() is None, timeout=20)


def cli(*arguments):
    environment = dict(os.environ, HOME=args.home, NO_COLOR="1", TZ="UTC")
    return subprocess.run([args.recnotes, "--store", args.store, *arguments], check=True, env=environment,
                          capture_output=True, text=True).stdout


def writes_from_the_page():
    driver.get(base + "/")
    until("the root's items", lambda: "memo" in names())
    click("#items a[href='/?path=%2FTalks']")
    until("/Talks's items", lambda: "budget talk" in names())
    driver.find_element(By.LINK_TEXT, "budget talk").click()
    until("the recording's page", lambda: driver.find_element(By.TAG_NAME, "h1").text == "budget talk")
    until("the write controls", lambda: driver.find_elements(By.ID, "mark"))
    driver.execute_script("const a = document.getElementById('player'); a.pause(); a.currentTime = 2;")
    at(2, 0.01)
    driver.find_element(By.ID, "mark-label").send_keys("from the browser")
    click("#mark")
    until("the new marker listed", lambda: "from the browser" in driver.find_element(By.ID, "markers").text)
    marks = json.loads(cli("marks", "/Talks/budget talk", "--json"))
    added = [m for m in marks if m["label"] == "from the browser"]
    assert len(added) == 1 and abs(added[0]["seconds"] - 2) < 0.01, marks
    driver.find_element(By.ID, "tag-edit").send_keys("+phone")
    click("#tag")
    until("the tag shown", lambda: "phone" in driver.find_element(By.ID, "main").text)
    assert "phone" in json.loads(cli("info", "/Talks/budget talk", "--json"))["tags"]
    note = driver.find_element(By.ID, "note-edit")
    note.clear()
    note.send_keys("typed in a browser")
    click("#save-note")
    until("the note saved", lambda: cli("note", "/Talks/budget talk") == "typed in a browser\n")
    # Where the page can write, the note is in its editor alone, not shown a second time.
    assert not driver.find_elements(By.ID, "note"), "the note is shown beside its editor"
    assert driver.find_element(By.ID, "main").text.count("typed in a browser") == 0, "the note is shown as text too"
    # An upload from the folder's page becomes a recording that `recnotes ls` shows.
    wav = os.path.join(args.home, "from phone.wav")
    subprocess.run(["sox", "-n", "-r", "48000", "-c", "1", "-b", "16", wav, "synth", "1", "sine", "440"], check=True)
    driver.get(base + "/?path=%2FTalks")
    until("the upload control", lambda: driver.find_elements(By.ID, "upload-file"))
    # Choosing the file sends it: the chooser's button is all there is to press.
    driver.find_element(By.ID, "upload-file").send_keys(wav)
    until("the upload listed", lambda: "from phone" in names(), timeout=20)
    assert "from phone" in cli("ls", "/Talks")


PHONE = (390, 844)
DESKTOP = (1280, 900)


def set_viewport(width, height):
    """The page's own area `width`×`height` CSS pixels, as a phone's or a desktop's screen."""
    driver.set_window_size(width, height)
    inner = driver.execute_script("return [window.innerWidth, window.innerHeight]")
    driver.set_window_size(2 * width - inner[0], 2 * height - inner[1])


def uuid_of(path):
    return json.loads(cli("info", path, "--json"))["uuid"]


def open_recording(path, size=PHONE):
    set_viewport(*size)
    driver.get(base + "/r/" + uuid_of(path))
    name = path.rsplit("/", 1)[1]
    until(f"{path}'s page", lambda: driver.find_element(By.TAG_NAME, "h1").text == name)
    until("the live stream open", lambda: driver.execute_script("return document.body.dataset.live") == "1")


def status_text():
    return driver.find_element(By.ID, "status").text


# Each pair of the page's visible controls and text blocks whose rectangles overlap (neither
# inside the other) by more than half a pixel. The status line is held at the window's foot,
# so the page is looked at scrolled to its end, where the status line must cover nothing.
OVERLAPS = """
const selector = 'a, button, input, select, textarea, canvas, audio, summary, h1, h2, h3, p, li, #status';
// A closed <details>' content keeps its boxes in Chromium (content-visibility), unseen.
const shown = [...document.querySelectorAll(selector)].filter((e) => {
  const r = e.getBoundingClientRect(), style = getComputedStyle(e);
  const folded = e.tagName !== 'SUMMARY' && e.closest('details:not([open])');
  return r.width > 0 && r.height > 0 && style.visibility !== 'hidden' && !folded;
});
const name = (e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + ' ' +
  JSON.stringify((e.textContent || e.value || '').trim().slice(0, 24));
const found = [];
for (let i = 0; i < shown.length; i++) {
  for (let j = i + 1; j < shown.length; j++) {
    const a = shown[i], b = shown[j];
    if (a.contains(b) || b.contains(a)) continue;
    const r = a.getBoundingClientRect(), q = b.getBoundingClientRect();
    const w = Math.min(r.right, q.right) - Math.max(r.left, q.left);
    const h = Math.min(r.bottom, q.bottom) - Math.max(r.top, q.top);
    if (w > 0.5 && h > 0.5) found.push(name(a) + ' over ' + name(b));
  }
}
return found;
"""


def no_overlaps(where):
    driver.execute_script("window.scrollTo(0, document.documentElement.scrollHeight)")
    time.sleep(0.1)
    found = driver.execute_script(OVERLAPS)
    assert not found, f"{where}: {found[:4]}"


def layout_has_no_overlaps():
    talk = uuid_of("/Talks/budget talk")
    for size in [PHONE, DESKTOP]:
        set_viewport(*size)
        for url, ready in [("/", lambda: "memo" in names()),
                           ("/?path=%2FTalks", lambda: "budget talk" in names()),
                           (f"/r/{talk}", lambda: driver.find_elements(By.CSS_SELECTOR, "#transcript li a"))]:
            driver.get(base + url)
            until(f"{url} shown", ready)
            until("the write controls", lambda: driver.find_elements(By.CSS_SELECTOR, "#upload, #mark"))
            # A message as long as a failed write's, which takes more than one line on a phone.
            driver.execute_script("document.getElementById('status').textContent = arguments[0]",
                                  "Mark here: 00:00:05.47 is outside the recording (00:00:00.00 to 00:00:05.47); "
                                  "the play head was past the end of the recording")
            no_overlaps(f"{url} at {size[0]}×{size[1]}")
    # On a phone the list starts in the first quarter of the screen, under the header, the
    # folder's name and its controls.
    set_viewport(*PHONE)
    driver.get(base + "/")
    until("the root's items", lambda: "memo" in names())
    until("the upload control", lambda: driver.find_elements(By.ID, "upload"))
    top = driver.execute_script("return document.getElementById('items').getBoundingClientRect().top")
    height = driver.execute_script("return window.innerHeight")
    assert top <= height / 4, f"the list starts at {top} px of {height}"


def audio_not_here_says_where_and_gets_it():
    set_viewport(*PHONE)
    driver.get(base + "/")
    until("the root's items", lambda: "old take" in names())
    assert "not here" in row_text("old take") and "not here" in row_text("lost take"), [row_text("old take"), row_text("lost take")]
    assert "not here" not in row_text("memo"), row_text("memo")
    open_recording("/old take")
    until("where the audio is", lambda: "hub" in driver.find_element(By.ID, "absent").text)
    notice = driver.find_element(By.ID, "absent").text
    assert "not on this machine" in notice, notice
    assert not driver.find_element(By.ID, "play").is_displayed(), "a Play button for audio that is not here"
    assert not driver.find_element(By.ID, "player").is_displayed(), "a player for audio that is not here"
    assert "speed" not in driver.find_element(By.ID, "main").text, "the player's controls are left half shown"
    # The waveform that store.json keeps is there to draw, although the file is elsewhere.
    waveform = driver.execute_script(
        "return fetch('/api/info?path=/old%20take').then(r => r.json()).then(j => j.waveform)")
    assert waveform and waveform.strip(), f"no stored waveform: {waveform!r}"
    click("#get")
    until("the player back", lambda: driver.find_element(By.ID, "play").is_displayed(), timeout=30)
    assert not driver.find_element(By.ID, "absent").is_displayed(), "the notice stays after the get"
    click("#play")
    until("playing", lambda: audio("paused") is False and audio("currentTime") > 0.2)
    assert audio("error") is None, "the player failed"
    listed = [line for line in cli("ls", "-l", "/").splitlines() if "old take" in line]
    assert listed and "not here" not in listed[0], listed
    open_recording("/lost take")
    until("the lost file said", lambda: "No other copy" in driver.find_element(By.ID, "absent").text)
    assert not driver.find_elements(By.ID, "get"), "a Get button with no copy to get"


def mark_at_the_end_of_playback():
    open_recording("/Talks/budget talk")
    until("the duration known", lambda: (audio("duration") or 0) > 7)
    driver.execute_script("const a = document.getElementById('player'); a.currentTime = a.duration; a.play();")
    until("the end reached", lambda: audio("ended") is True)
    driver.find_element(By.ID, "mark-label").send_keys("the end")
    click("#mark")
    until("the end's marker listed", lambda: "the end" in driver.find_element(By.ID, "markers").text)
    marks = json.loads(cli("marks", "/Talks/budget talk", "--json"))
    end = [m for m in marks if m["label"] == "the end"]
    assert len(end) == 1 and end[0]["seconds"] > 7.9, marks
    assert not status_text().startswith("Mark here"), status_text()
    # A refusal is said in the page's words: what was done, never a command-line option.
    driver.find_element(By.ID, "tag-edit").send_keys("+a b")
    click("#tag")
    until("the refused tag said", lambda: status_text().startswith("Tag: "))
    assert "--" not in status_text() and "recnotes" not in status_text(), status_text()


def a_trashed_recording_says_so():
    open_recording("/Talks/from phone")
    cli("rm", "/Talks/from phone")
    until("the trash said", lambda: driver.find_elements(By.ID, "trashed"))
    assert "moved to the trash" in driver.find_element(By.ID, "trashed").text
    for control in ["play", "mark", "tag", "save-note", "player"]:
        assert not driver.find_elements(By.ID, control), f"#{control} is still there"


def a_note_changed_elsewhere_is_not_overwritten():
    open_recording("/Talks/budget talk")
    note = driver.find_element(By.ID, "note-edit")
    note.clear()
    note.send_keys("typed on the phone")
    cli("note", "/Talks/budget talk", "--set", "changed in a shell")
    until("the shell's note seen", lambda: "Updated" in status_text())
    assert note.get_attribute("value") == "typed on the phone", note.get_attribute("value")
    click("#save-note")
    until("both texts offered", lambda: driver.find_element(By.ID, "note-conflict").is_displayed())
    assert driver.find_element(By.ID, "note-mine").text == "typed on the phone"
    assert driver.find_element(By.ID, "note-theirs").text == "changed in a shell"
    assert cli("note", "/Talks/budget talk") == "changed in a shell\n", "the shell's note was replaced"
    click("#keep-mine")
    until("mine saved", lambda: cli("note", "/Talks/budget talk") == "typed on the phone\n")


def tags_by_enter_and_by_click():
    open_recording("/Talks/budget talk")
    driver.find_element(By.ID, "tag-edit").send_keys("+entered\n")
    until("the entered tag", lambda: driver.find_elements(By.CSS_SELECTOR, "#tags [data-tag='entered']"))
    assert "entered" in json.loads(cli("info", "/Talks/budget talk", "--json"))["tags"]
    click("#tags [data-tag='entered']")
    until("the tag removed", lambda: not driver.find_elements(By.CSS_SELECTOR, "#tags [data-tag='entered']"))
    assert "entered" not in json.loads(cli("info", "/Talks/budget talk", "--json"))["tags"]


def topics_and_chapters_show_and_play():
    open_recording("/Talks/budget talk", DESKTOP)
    until("the topics", lambda: driver.find_elements(By.CSS_SELECTOR, "#topics button"))
    terms = [b.get_attribute("data-term") for b in driver.find_elements(By.CSS_SELECTOR, "#topics button")]
    expected = [t["term"] for t in json.loads(cli("topics", "/Talks/budget talk", "--json", "--count", "8"))]
    assert terms == expected, (terms, expected)
    # "zebra" is said in the third line alone, which starts at 4.5 s.
    click("#topics button[data-term='zebra']")
    at(4.5, 1.5)
    chapters = json.loads(cli("chapters", "/Talks/budget talk", "--json"))
    shown = driver.find_elements(By.CSS_SELECTOR, "#chapters button")
    assert len(shown) == len(chapters), ([b.text for b in shown], chapters)
    if not chapters:
        assert driver.find_element(By.ID, "chapters").text == "One subject throughout."


def a_word_is_corrected_in_place():
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys
    open_recording("/Talks/budget talk", DESKTOP)
    before = json.loads(cli("transcript", "/Talks/budget talk", "--format", "json"))["segments"]

    def correct(line, position, typed, key=Keys.ENTER):
        word = until(f"word {position} of line {line}", lambda: driver.find_element(
            By.CSS_SELECTOR, f"#transcript li:nth-child({line}) .word[data-word='{position}']"))
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", word)
        ActionChains(driver).double_click(word).perform()
        field = until("the word's field", lambda: driver.find_element(By.CSS_SELECTOR, "#transcript .word-edit"))
        field.send_keys(Keys.CONTROL, "a")
        field.send_keys(typed, key)

    correct(2, 3, "huge")
    until("the corrected line", lambda: "the budget is huge" in driver.find_element(By.ID, "transcript").text)
    after = json.loads(cli("transcript", "/Talks/budget talk", "--format", "json"))
    assert [s["text"] for s in after["segments"]] == ["hello there", "the budget is huge", "zebra crossing ahead"], after
    assert [(s["start"], s["end"]) for s in after["segments"]] == [(s["start"], s["end"]) for s in before], after
    assert after.get("corrected") is True, after
    # Escape leaves a word as it was.
    correct(1, 1, "nowhere", Keys.ESCAPE)
    until("the field gone", lambda: not driver.find_elements(By.CSS_SELECTOR, "#transcript .word-edit"))
    assert "hello there" in driver.find_element(By.ID, "transcript").text
    # A name brought in is offered, once, to your words.
    correct(3, 0, "Zanzibar")
    until("the offer to add it", lambda: driver.find_element(By.ID, "words-offer").is_displayed())
    assert "Zanzibar" in driver.find_element(By.ID, "words-offer").text
    click("#add-words")
    until("the word added", lambda: "Zanzibar" in cli("words").split("\n"))
    until("the offer gone", lambda: not driver.find_element(By.ID, "words-offer").is_displayed())
    # Put back as it was, for the checks after this one.
    cli("undo")
    cli("undo")
    cli("words", "rm", "Zanzibar")
    until("the transcript back", lambda: "zebra crossing ahead" in driver.find_element(By.ID, "transcript").text)


def the_server_not_answering_is_said():
    open_recording("/Talks/budget talk")
    offline = {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.emulateNetworkConditions", offline)
    try:
        driver.find_element(By.ID, "tag-edit").send_keys("+offline\n")
        until("the server said to be away", lambda: "the server is not answering" in status_text())
        assert "Failed to fetch" not in status_text(), status_text()
    finally:
        driver.execute_cdp_cmd("Network.emulateNetworkConditions", dict(offline, offline=False))
    set_viewport(*DESKTOP)


def screenshots():
    if not args.screenshots:
        return
    talk = driver.execute_script(
        "return fetch('/api/info?path=/Talks/budget%20talk').then(r => r.json()).then(j => j.uuid)")
    for width, label in [(390, "phone"), (1280, "desktop")]:
        driver.set_window_size(width, 900)
        driver.get(base + "/?path=%2FTalks")
        until("the folder", lambda: names() == ["budget talk"])
        driver.save_screenshot(os.path.join(args.screenshots, f"serve-library-{label}.png"))
        driver.get(base + f"/r/{talk}#t=4.6")
        until("the transcript lit", lambda: driver.find_elements(By.CSS_SELECTOR, "#transcript li.now"))
        driver.execute_script("document.getElementById('player').pause()")
        time.sleep(0.3)
        driver.save_screenshot(os.path.join(args.screenshots, f"serve-recording-{label}.png"))


try:
    check("the library page lists the recordings", library_lists_recordings)
    check("clicking a recording plays it", clicking_a_recording_plays_it)
    check("a marker seeks", a_marker_seeks)
    check("a transcript line seeks and is lit", a_transcript_line_seeks_and_is_lit)
    check("speed sets playbackRate", speed_sets_playback_rate)
    check("search lands on the moment", search_lands_on_the_moment)
    check("a change from another process shows without a reload", a_change_elsewhere_shows_without_a_reload)
    check("a recording's live words show while it records", live_words_show_while_recording)
    check("a marker, a tag, a note and an upload from the page", writes_from_the_page)
    check("no two controls overlap, on a phone and a desktop", layout_has_no_overlaps)
    check("audio not here: the page says where it is, and Get brings it", audio_not_here_says_where_and_gets_it)
    check("Mark here at the end of playback", mark_at_the_end_of_playback)
    check("a recording trashed from a shell says so", a_trashed_recording_says_so)
    check("a note changed elsewhere is not overwritten", a_note_changed_elsewhere_is_not_overwritten)
    check("a tag added with Enter and removed by a click", tags_by_enter_and_by_click)
    check("topics and chapters show, and a topic plays where it is said", topics_and_chapters_show_and_play)
    check("a word of the transcript corrected in place", a_word_is_corrected_in_place)
    check("the server not answering is said", the_server_not_answering_is_said)
    check("screenshots", screenshots)
finally:
    driver.quit()

print(f"browser checks: {checks.passed} passed, {checks.failed} failed", flush=True)
sys.exit(1 if checks.failed else 0)
