"""The rules by which a committed store's numbers become a page's numbers (issue 33, items 4 and
5), shared by ci/new-families-tables.py, which prints the generated tables, and
tests/regress/check_figures_readme.py, which checks the hand-written prose against the stores.

- A point is *sound* when it is verified and timed (status ok), its median comes from at least
  MIN_SAMPLES repetitions (the `samples` table) and it is not `noisy` (its median's confidence
  interval met the config's target). Only sound points feed a headline: a ratio of two medians,
  a share of a peak or of a bound. A point that is not sound is shown with what it lacks
  (`note`), and a ratio that would need it reads NOT_ENOUGH.
- A ratio between the best points of two sides needs the fastest point of each side to be sound:
  the best sound point of a side whose fastest point is not sound would be a guess at which of
  its points is fastest.
- How a store's points were measured is said from its `runs` table (`measured_in`): one run, or
  several runs of one build and config, with how each ended."""
import sqlite3

MIN_SAMPLES = 5
NOT_ENOUGH = "not enough samples"

# Every point with its sample count, its `noisy` flag and whether it is sound; the readers query
# this view instead of `points`.
PTS_VIEW = f"""CREATE TEMP VIEW IF NOT EXISTS pts AS
    SELECT p.*, (SELECT COUNT(*) FROM samples s WHERE s.point_id = p.id) AS n_samples,
      COALESCE((SELECT m.value FROM metrics m WHERE m.point_id = p.id AND m.name = 'noisy'), 0) AS noisy,
      (p.status = 'ok' AND (SELECT COUNT(*) FROM samples s WHERE s.point_id = p.id) >= {MIN_SAMPLES}
       AND COALESCE((SELECT m.value FROM metrics m WHERE m.point_id = p.id AND m.name = 'noisy'), 0) = 0)
      AS sound
    FROM points p"""


def connect(path):
    """A read-only connection to a committed store, with the `pts` view."""
    conn = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    conn.execute(PTS_VIEW)
    return conn


class Stores:
    """The stores of one folder, each opened once (read-only, with the `pts` view) when first
    read: conn(path) is the connection, rows(path, sql, *args) a query's rows."""

    def __init__(self, base):
        self.base = base
        self._conns = {}

    def conn(self, path):
        if path not in self._conns:
            self._conns[path] = connect(f"{self.base}/{path}")
        return self._conns[path]

    def rows(self, path, sql, *args):
        return self.conn(path).execute(sql, args).fetchall()


def note(n_samples, noisy):
    """What an ok point lacks for a headline: '' when sound, else e.g. ' (noisy, 3 samples)'."""
    if n_samples >= MIN_SAMPLES and not noisy:
        return ""
    lacks = (["noisy"] if noisy else []) + [f"{n_samples} sample{'' if n_samples == 1 else 's'}"]
    return " (" + ", ".join(lacks) + ")"


def is_sound(n_samples, noisy):
    return n_samples >= MIN_SAMPLES and not noisy


WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight",
         9: "nine", 10: "ten"}


def number_word(n):
    return WORDS.get(n, str(n))


def measured_in(conn):
    """How the store's points were measured, from its runs table: 'in one run (revision
    6c4fc0e, complete)' or 'in five runs of one build and config (revision b3d6e95): four
    interrupted, each resumed by the next, the last complete'."""
    runs = conn.execute("SELECT git_revision, git_dirty, status, build_id, config_hash FROM runs "
                        "ORDER BY id").fetchall()
    revs = sorted({f"{r[0][:7]}{' (dirty)' if r[1] else ''}" for r in runs})
    if len(runs) == 1:
        return f"in one run (revision {revs[0]}, {runs[0][2]})"
    same = len({r[3] for r in runs}) == 1 and len({r[4] for r in runs}) == 1
    what = "of one build and config" if same else "of different builds or configs"
    states = [r[2] for r in runs]
    if all(s == "complete" for s in states):
        ended = f"{'both' if len(runs) == 2 else 'all'} complete"
    elif all(s == "interrupted" for s in states[:-1]):
        k = len(runs) - 1
        ended = (f"{number_word(k)} interrupted, {'resumed by the next' if k == 1 else 'each resumed by the next'}, "
                 f"the last {states[-1]}")
    else:
        ended = ", ".join(states)
    return f"in {number_word(len(runs))} runs {what} (revision {', '.join(revs)}): {ended}"
