"""What the browser scripts share: running checks one after another (a failure is printed
and counted, and the next check runs) and waiting for the page."""

from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.support.ui import WebDriverWait


class Checks:
    def __init__(self, driver, on_failure=None):
        self.driver = driver
        self.on_failure = on_failure  # prints what the page shows, after a failure's line
        self.passed = 0
        self.failed = 0

    def check(self, name, body):
        try:
            body()
            self.passed += 1
            print(f"ok: {name}", flush=True)
        except Exception as error:  # a check that fails must not stop the others
            self.failed += 1
            message = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            print(f"FAILED: {name}: {message}", flush=True)
            if self.on_failure:
                self.on_failure()

    def until(self, what, condition, timeout=15, poll=0.1):
        # The page redraws what it shows on every store event: an element found a moment ago
        # may have been replaced by the time it is read, which is a reason to look again, not
        # a failure.
        return WebDriverWait(self.driver, timeout, poll_frequency=poll,
                             ignored_exceptions=[NoSuchElementException, StaleElementReferenceException]
                             ).until(lambda d: condition(), message=what)
