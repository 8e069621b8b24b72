//! The presenter's history, kept beside the sessions on this machine: read at the start
//! (its last session goes to the rehearsal), this session added when its debrief is
//! written. A history that cannot be read is left as it is and not added to.

use std::path::{Path, PathBuf};

use rehearsal_core::history::{PastSession, PresenterHistory};

use crate::setup::Presenter;

pub struct Memory {
    path: PathBuf,
    history: PresenterHistory,
    /// The file could not be read: it is not overwritten.
    broken: bool,
}

impl Memory {
    /// The history of `who` (by default the deck's title), one file per presenter in its
    /// folder (by default `presenters/` beside the session `folder`); a fresh start
    /// reads it as if it were empty (this session is still added). Returns the last
    /// session to tell the panel.
    pub fn open(folder: &Path, deck_title: &str, who: Presenter) -> (Self, Option<PastSession>) {
        let presenter = who.name.unwrap_or_else(|| deck_title.to_owned());
        let dir = who
            .history_dir
            .unwrap_or_else(|| folder.parent().unwrap_or(Path::new(".")).join("presenters"));
        let fresh = who.fresh;
        let path = dir.join(format!("{}.json", slug(&presenter)));
        let mut broken = false;
        let history = match std::fs::read_to_string(&path) {
            Ok(text) => match PresenterHistory::parse(&text) {
                Ok(history) => history,
                Err(e) => {
                    tracing::warn!(file = %path.display(), error = %e, "the presenter's history cannot be read; it is left as it is and this session is not added");
                    broken = true;
                    PresenterHistory::new(&presenter)
                }
            },
            Err(_) => PresenterHistory::new(&presenter),
        };
        let last = history.last().cloned().filter(|_| !fresh);
        tracing::info!(
            %presenter,
            file = %path.display(),
            sessions = history.sessions.len(),
            fresh,
            open_challenges = last.as_ref().map_or(0, |l| l.open.len()),
            "presenter history"
        );
        (
            Self {
                path,
                history,
                broken,
            },
            last,
        )
    }

    /// Adds this session (as the rehearsal summed it up).
    pub fn remember(&mut self, session: PastSession) {
        if self.broken {
            return;
        }
        self.history.push(session);
        let written = self
            .path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| {
                // Whole or not at all: a reader never sees half a history.
                let partial = self.path.with_extension("json.partial");
                std::fs::write(&partial, self.history.to_json())?;
                std::fs::rename(&partial, &self.path)
            });
        match written {
            Ok(()) => {
                tracing::info!(file = %self.path.display(), sessions = self.history.sessions.len(), "presenter history written")
            }
            Err(e) => {
                tracing::warn!(file = %self.path.display(), error = %e, "presenter history not written")
            }
        }
    }
}

/// A file name for a presenter: lower-case letters and digits, words joined by `-`.
fn slug(name: &str) -> String {
    let words: Vec<String> = name
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    if words.is_empty() {
        "presenter".to_owned()
    } else {
        words.join("-")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_presenter_s_file_name_is_plain() {
        assert_eq!(slug("Acme Robotics"), "acme-robotics");
        assert_eq!(slug("../../etc/passwd"), "etc-passwd");
        assert_eq!(slug("  "), "presenter");
        assert_eq!(slug("Zoë 李"), "zoë-李");
    }
}
