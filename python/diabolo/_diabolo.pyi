"""Type stubs of the native module `diabolo._diabolo` (the Rust core). Use the `diabolo`
package's functions and classes instead; these are their building blocks."""

from typing import Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str

class DiaboloError(Exception):
    """Base class of the errors of diabolo."""

class InvalidScenario(DiaboloError):
    """The scenario cannot be run: the command line's message (JSON path, value, fix)."""

class RunFailed(DiaboloError):
    """The run stopped early: the message gives the time and the object."""

Columns = Dict[
    str,
    Union[
        npt.NDArray[np.float64],
        npt.NDArray[np.int64],
        Tuple[npt.NDArray[np.uint32], List[str]],
    ],
]

def run(
    text: Optional[str], label: str, sets: List[Tuple[str, str]], rows: bool = True
) -> Tuple[Columns, str, str, Optional[str], List[str]]:
    """Runs a scenario (its JSON text, or the file `label` when `text` is None): the columns,
    the events and the summary as JSON texts, the failure message or None, the warnings."""

def validate(text: Optional[str], label: str, sets: List[Tuple[str, str]]) -> List[str]:
    """The scenario's plausibility warnings; raises InvalidScenario."""

def schema() -> str:
    """The JSON Schema of the scenario format, as text."""

def sweep(
    text: Optional[str],
    label: str,
    sets: List[Tuple[str, str]],
    grid: List[Tuple[str, float, float, int]],
    lists: List[Tuple[str, str]],
    samples: Optional[int],
    seed: int,
    jobs: Optional[int],
    points: Optional[Tuple[int, int]] = None,
) -> Tuple[str, int, int]:
    """The summary CSV text of a sweep (of the points start..end of `points`, each row with its
    index in the whole sweep; default all), its number of failed points, and the number of
    points of the whole sweep."""

def plan(
    text: Optional[str],
    label: str,
    sets: List[Tuple[str, str]],
    seed: int,
    jobs: Optional[int],
    max_simulations: int,
) -> Tuple[str, str, List[bool]]:
    """Plans a task as `diabolo plan` does: the planned scenario's text (the `-o` file, byte for
    byte), the report's JSON text (`--report`) and whether each of its checks holds; raises
    InvalidScenario for a bad task, KeyboardInterrupt on Ctrl-C."""

def set_path(
    stepper: "Stepper",
    side: int,
    keyframes: List[Tuple[float, float, float]],
    velocity: Optional[Tuple[float, float]] = None,
) -> None:
    """Drives stick `side` of a planar stepper along the C2 cubic spline through `keyframes`
    (t from now, x, y), at rest at the last, exactly (a path drive), leaving the first keyframe
    at `velocity` (m/s; default at rest)."""

class Stepper:
    """A scenario advanced step by step (a Rust `Session`, or a `SpaceSession` in space)."""

    def __init__(self, text: Optional[str], label: str, sets: List[Tuple[str, str]]) -> None: ...
    def step(self, dt: float) -> str:
        """Advances by dt, s: the events on the way as a JSON array text ("" when none)."""
    def new_events(self) -> str: ...
    def set_hand(
        self,
        side: int,
        kind: str,
        value: Optional[Sequence[float]] = None,
        gains: Optional[Tuple[float, float, float]] = None,
    ) -> None:
        """`kind`: "force" (N), "accel" (m/s^2), "target" (m, with gains k N/m, b N s/m,
        max force N) or "released"; `value` (x, y), or (x, y, z) in space."""
    def set_hands(
        self,
        kind: str,
        values: Optional[Tuple[Sequence[float], Sequence[float]]] = None,
        gains: Optional[Tuple[float, float, float]] = None,
    ) -> None:
        """Both hands at once (one re-entry of the string in the plane): `kind` and `gains` as
        `set_hand`'s, `values` the left and the right hand's value."""
    @property
    def space(self) -> bool: ...
    @property
    def time(self) -> float: ...
    @property
    def finished(self) -> bool: ...
    @property
    def duration(self) -> float: ...
    @property
    def diabolos(self) -> int: ...
    @property
    def stick_mass(self) -> float: ...
    @property
    def failure(self) -> Optional[str]: ...
    def state(self) -> Dict[str, object]: ...
    def report(self) -> str: ...
    def reset(self) -> None: ...
    def copy(self) -> "Stepper": ...

class Batch:
    """N simulations of one scenario stepped together by Rust threads (`diabolo.Batch`'s native
    half); each member a `Stepper`. The arrays out: observations (N, size) float32, values
    (N, 8) float64 (t, x, y, hands_x, speed, spin, tilt, hands_y), flags (N, 4) int32 (status,
    mode, lands, drops)."""

    def __init__(
        self,
        text: Optional[str],
        label: str,
        sets: List[Tuple[str, str]],
        count: int,
        members: List[Tuple[str, List[str]]],
        jobs: Optional[int] = None,
    ) -> None:
        """`count` members; `members[k] = (key, values)` gives member i `--set key=values[i]`;
        raises InvalidScenario naming the member, the field and the value."""
    def step(
        self,
        dt: float,
        kind: Optional[str] = None,
        values: Optional[npt.NDArray[np.float64]] = None,
        gains: Optional[Tuple[float, float, float]] = None,
        chosen: Optional[List[bool]] = None,
    ) -> Tuple[npt.NDArray[np.float32], npt.NDArray[np.float64], npt.NDArray[np.int32]]:
        """Sets both hands of the chosen members (`kind` "accel", "force" or "target" with
        `gains`; `values` (chosen, 2, dim), C-contiguous) and advances them by dt, s."""
    def reset(
        self,
        chosen: Optional[List[bool]] = None,
        kind: Optional[str] = None,
        values: Optional[npt.NDArray[np.float64]] = None,
        gains: Optional[Tuple[float, float, float]] = None,
    ) -> Tuple[npt.NDArray[np.float32], npt.NDArray[np.float64], npt.NDArray[np.int32]]:
        """Starts the chosen members over at t = 0 (then sets their hands when given)."""
    def observe(
        self,
    ) -> Tuple[npt.NDArray[np.float32], npt.NDArray[np.float64], npt.NDArray[np.int32]]: ...
    def __len__(self) -> int: ...
    @property
    def space(self) -> bool: ...
    @property
    def size(self) -> int: ...
    @property
    def threads(self) -> int: ...
    @property
    def diabolos(self) -> int: ...
    @property
    def stick_mass(self) -> float: ...
    def events(self, i: int) -> str:
        """Member i's events not handed out yet, as a JSON array text ("" when none)."""
    def failure(self, i: int) -> Optional[str]: ...
    def member_copy(self, i: int) -> Stepper:
        """An independent copy of member i."""
