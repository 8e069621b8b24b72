//! Writes a decision node's log, `decisions/<node-id>.jsonl` in the session folder (the
//! format: [`decision_log`]). Appended line by line, so a crash keeps what was decided;
//! a restarted node adds a new setup line rather than starting another file. Writing is
//! best effort: a failure is a warning, never a reason to stop deciding.

use std::{
    fs::{File, OpenOptions},
    io::Write,
    path::{Path, PathBuf},
    time::Duration,
};

use serde::Serialize;

/// A log larger than this stops growing (with a warning): a runaway input stream must not
/// fill the disk. What was recorded up to there still replays.
pub const MAX_LOG_BYTES: u64 = 256 << 20;

pub struct DecisionWriter {
    path: PathBuf,
    file: Option<File>,
    written: u64,
}

impl DecisionWriter {
    /// Opens (appending) the log of `node_id` in `session_dir` and records the setup.
    pub fn open<S: Serialize>(session_dir: &Path, node_id: &str, format: &str, setup: &S) -> Self {
        let dir = session_dir.join("decisions");
        let path = dir.join(format!("{node_id}.jsonl"));
        let file = std::fs::create_dir_all(&dir)
            .and_then(|()| OpenOptions::new().create(true).append(true).open(&path));
        let mut writer = Self {
            file: match file {
                Ok(file) => Some(file),
                Err(e) => {
                    tracing::warn!(path = %path.display(), error = %e, "cannot write the decision log; deciding without it");
                    None
                }
            },
            path,
            written: 0,
        };
        writer.write(&decision_log::setup_line(format, setup));
        writer
    }

    /// Records one call of the core: the time passed in, the input, what it decided.
    pub fn step<I: Serialize, O: std::fmt::Debug>(
        &mut self,
        at: Duration,
        input: &I,
        outputs: &[O],
    ) {
        if self.file.is_some() {
            let at_ns = u64::try_from(at.as_nanos()).unwrap_or(u64::MAX);
            self.write(&decision_log::step_line(at_ns, input, outputs));
        }
    }

    fn write(&mut self, line: &str) {
        let Some(file) = &mut self.file else { return };
        self.written += line.len() as u64 + 1;
        if self.written > MAX_LOG_BYTES {
            tracing::warn!(path = %self.path.display(), limit = MAX_LOG_BYTES, "the decision log is full; stopping it");
            self.file = None;
            return;
        }
        if let Err(e) = writeln!(file, "{line}") {
            tracing::warn!(path = %self.path.display(), error = %e, "cannot write the decision log; stopping it");
            self.file = None;
        }
    }
}

/// A core whose every call is made through [`conductor::call`] and recorded: a node's
/// way to call its core, so that `replay` makes the very same calls.
pub struct Recorded<C: conductor::Core> {
    pub core: C,
    opening: C::Opening,
    log: DecisionWriter,
}

impl<C> Recorded<C>
where
    C: conductor::Core,
    C::Input: Serialize + Clone,
    C::Output: std::fmt::Debug,
{
    pub fn new(core: C, opening: C::Opening, log: DecisionWriter) -> Self {
        Self { core, opening, log }
    }

    /// Makes `call` at `now_ms` (ms of the run) and records it with what was decided.
    pub fn call(&mut self, call: conductor::Call<C::Input>, now_ms: u64) -> Vec<C::Output> {
        let out = conductor::call(&mut self.core, &self.opening, call.clone(), now_ms);
        self.log.step(Duration::from_millis(now_ms), &call, &out);
        out
    }

    /// Calls the conductor once per input, in order, at `now_ms`; all they decided.
    pub fn call_each(
        &mut self,
        inputs: impl IntoIterator<Item = C::Input>,
        now_ms: u64,
    ) -> Vec<C::Output> {
        let mut out = Vec::new();
        for input in inputs {
            out.extend(self.call(conductor::Call::Input(input), now_ms));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts what it is told; says how many at each tick.
    struct Counter(u64);

    impl conductor::Core for Counter {
        type Input = u64;
        type Output = String;
        type Opening = u64;

        fn start(&mut self, opening: &u64, _: u64) -> Vec<String> {
            self.0 = *opening;
            vec![format!("from {opening}")]
        }
        fn handle(&mut self, input: u64, _: u64) -> Vec<String> {
            self.0 += input;
            Vec::new()
        }
        fn tick(&mut self, now_ms: u64) -> Vec<String> {
            vec![format!("{} at {now_ms}", self.0)]
        }
        fn next_wake(&self) -> Option<u64> {
            None
        }
        fn finished(&self) -> bool {
            false
        }
    }

    #[test]
    fn every_call_is_recorded_and_replays_to_the_same_decisions() {
        use conductor::Call;
        let dir = std::env::temp_dir().join(format!("decisions-{}", std::process::id()));
        let log = DecisionWriter::open(&dir, "counter", "counter", &10u64);
        let mut recorded = Recorded::new(Counter(0), 10, log);
        assert_eq!(recorded.call(Call::Start, 0), ["from 10"]);
        recorded.call(Call::Input(5), 20);
        assert_eq!(recorded.call(Call::Tick, 30), ["15 at 30"]);
        let text = std::fs::read_to_string(dir.join("decisions/counter.jsonl")).unwrap();
        let segments: Vec<decision_log::Segment<u64, Call<u64>>> =
            decision_log::read(&text).unwrap();
        assert_eq!(segments.len(), 1);
        let mut again = Counter(0);
        let opening = segments[0].setup;
        let comparison = decision_log::compare(&segments[0], |call, at_ns| {
            decision_log::decisions(&conductor::call(
                &mut again,
                &opening,
                call.clone(),
                at_ns / 1_000_000,
            ))
        });
        assert_eq!((comparison.steps, comparison.first_difference), (3, None));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
