//! The session folder's two logs and the console, written one flushed line at a time.

use std::{
    fs::{File, OpenOptions},
    io::Write,
    path::Path,
};

use eyre::Context;
use session_log::Record;

use crate::context::ContextSession;

pub struct Files {
    transcript: File,
    events: File,
    context: Option<ContextSession>,
}

impl Files {
    pub fn open(dir: &Path, context: Option<ContextSession>) -> eyre::Result<Self> {
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
            Record::Transcript(line) => {
                if let Some(context) = &self.context {
                    context.record(line);
                }
                &mut self.transcript
            }
            Record::Event(_) | Record::Stamped(_) => &mut self.events,
        };
        write_line(file, &record.to_json())?;
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

fn open_append(path: &Path) -> eyre::Result<File> {
    OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .with_context(|| format!("cannot open {}", path.display()))
}
