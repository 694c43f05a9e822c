#!/usr/bin/python3
"""recnotes serve's page in headless Chromium (Debian's chromium, chromium-driver and
python3-selenium, which are for /usr/bin/python3).

Run by Tests/EndToEndTests/ServeBrowserTests.swift against a server it started on a store it
made with the CLI: /Talks/budget talk (8 s, markers at 3 s "budget" and 6 s "wrap up", a
transcript whose third line, "zebra crossing ahead", starts at 4.5 s) and /memo. Each check
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
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

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

passed = 0
failed = 0


def check(name, body):
    global passed, failed
    try:
        body()
        passed += 1
        print(f"ok: {name}", flush=True)
    except Exception as error:  # a check that fails must not stop the others
        failed += 1
        message = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        print(f"FAILED: {name}: {message}", flush=True)


def until(what, condition, timeout=15):
    # The page redraws what it shows on every store event: an element found a moment ago may
    # have been replaced by the time it is read, which is a reason to look again, not a failure.
    return WebDriverWait(driver, timeout, poll_frequency=0.1,
                         ignored_exceptions=[NoSuchElementException, StaleElementReferenceException]
                         ).until(lambda d: condition(), message=what)


def names():
    return [a.text for a in driver.find_elements(By.CSS_SELECTOR, "#items li a.name")]


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
    memo = driver.find_element(By.CSS_SELECTOR, "#items li:has(a.name[href^='/r/'])").text
    assert "memo" in memo and "¶" not in memo, f"a transcript mark on {memo!r}, which has none"
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
    until("the note shown", lambda: driver.find_element(By.ID, "note").text == "typed in a browser")
    assert cli("note", "/Talks/budget talk") == "typed in a browser\n"
    # An upload from the folder's page becomes a recording that `recnotes ls` shows.
    wav = os.path.join(args.home, "from phone.wav")
    subprocess.run(["sox", "-n", "-r", "48000", "-c", "1", "-b", "16", wav, "synth", "1", "sine", "440"], check=True)
    driver.get(base + "/?path=%2FTalks")
    until("the upload control", lambda: driver.find_elements(By.ID, "upload-file"))
    driver.find_element(By.ID, "upload-file").send_keys(wav)
    click("#upload")
    until("the upload listed", lambda: "from phone" in names(), timeout=20)
    assert "from phone" in cli("ls", "/Talks")


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
    check("a marker, a tag, a note and an upload from the page", writes_from_the_page)
    check("screenshots", screenshots)
finally:
    driver.quit()

print(f"browser checks: {passed} passed, {failed} failed", flush=True)
sys.exit(1 if failed else 0)
