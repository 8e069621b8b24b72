//! The session folder's two logs and the console, written one flushed line at a time.

use std::{
    fs::{File, OpenOptions},
    io::Write,
    path::Path,
};

use eyre::Context;
use session_log::{Record, TranscriptLine};

use crate::context::ContextSession;

pub struct Files {
    transcript: File,
    events: File,
    context: Option<ContextSession>,
}

impl Files {
    pub fn open(dir: &Path, context: Option<ContextSession>) -> eyre::Result<Self> {
        if let Some(context) = &context {
            context.catch_up(&written_transcript(&dir.join("transcript.jsonl")));
        }
        Ok(Self {
            transcript: open_append(&dir.join("transcript.jsonl"))?,
            events: open_append(&dir.join("events.jsonl"))?,
            context,
        })
    }

    /// A record to its log (a transcript line to the agent context too), and its console
    /// line, if it has one.
    pub fn write(&mut self, record: &Record) -> eyre::Result<()> {
        let file = match record {
            Record::Transcript(_) => &mut self.transcript,
            Record::Event(_) | Record::Stamped(_) => &mut self.events,
        };
        write_line(file, &record.to_json())?;
        // The transcript first: a recorder killed between the two leaves the context a
        // line behind, which its restart catches up ([`ContextSession::catch_up`]).
        if let (Record::Transcript(line), Some(context)) = (record, &self.context) {
            context.record(line);
        }
        if let Some(line) = record.console_line() {
            let mut stdout = std::io::stdout();
            let _ = writeln!(stdout, "{line}");
            let _ = stdout.flush();
        }
        Ok(())
    }

    /// The session is over: the agent context is frozen.
    pub fn finish(self) {
        if let Some(context) = &self.context {
            context.freeze();
        }
    }
}

fn write_line(file: &mut File, line: &str) -> eyre::Result<()> {
    writeln!(file, "{line}")
        .and_then(|_| file.flush())
        .context("cannot write the session folder")
}

/// The transcript lines already in the file (a restarted recorder's); none when there is
/// no file yet. A torn last line is left out.
fn written_transcript(path: &Path) -> Vec<TranscriptLine> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect()
}

fn open_append(path: &Path) -> eyre::Result<File> {
    OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .with_context(|| format!("cannot open {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::Agents;

    fn line(q: u64, speaker: &str, text: &str, human: bool) -> Record {
        Record::Transcript(TranscriptLine {
            speaker: speaker.into(),
            question_id: q,
            text: text.into(),
            start_ms: q * 1_000,
            end_ms: q * 1_000 + 500,
            interrupted: false,
            human,
            text_played: None,
        })
    }

    /// A recorder killed after a line reached the transcript and before it reached the
    /// context: the restarted recorder's context catches up, once.
    #[test]
    fn a_restart_catches_the_context_up_with_the_transcript() {
        let dir = std::env::temp_dir().join(format!("recorder-catch-up-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..").to_owned();
        let agents = || Agents {
            names: vec!["tutor".parse().unwrap(), "student1".parse().unwrap()],
            root: root.clone(),
        };
        let context = ContextSession::open(&dir, "run", agents()).unwrap();
        let mut files = Files::open(&dir, Some(context)).unwrap();
        files
            .write(&line(1, "tutor", "Limits describe approach.", false))
            .unwrap();
        files
            .write(&line(2, "human", "Show me numbers", true))
            .unwrap();
        // Killed here: the next line is in the transcript only.
        let Record::Transcript(third) = line(3, "student1", "Like one over n?", false) else {
            unreachable!()
        };
        write_line(
            &mut open_append(&dir.join("transcript.jsonl")).unwrap(),
            &serde_json::to_string(&third).unwrap(),
        )
        .unwrap();
        drop(files);
        for _ in 0..2 {
            let context = ContextSession::open(&dir, "run", agents()).unwrap();
            drop(Files::open(&dir, Some(context)).unwrap());
        }
        let context = dir.join("context");
        let history = std::fs::read_to_string(context.join("shared/exchange-history.md")).unwrap();
        assert_eq!(
            history.lines().filter(|l| l.starts_with("- [")).count(),
            3,
            "{history}"
        );
        let notes = std::fs::read_to_string(context.join("student1/exchange-notes.md")).unwrap();
        assert_eq!(notes.matches("(q3)").count(), 1, "{notes}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
