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

pub struct DecisionWriter {
    path: PathBuf,
    file: Option<File>,
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
        if let Err(e) = writeln!(file, "{line}") {
            tracing::warn!(path = %self.path.display(), error = %e, "cannot write the decision log; stopping it");
            self.file = None;
        }
    }
}
