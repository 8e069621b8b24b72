//! What a rehearsal is built and started from, as its decision log records it.

use std::collections::BTreeMap;

use super::{Config, Rehearsal};
use crate::history::PastSession;
use crate::phrases::LoadReport;
use crate::{ConfigError, Deck, PanelConfig, PhraseLibrary};

/// The format name of a rehearsal moderator's decision log (crate `decision-log`).
pub const REHEARSAL_FORMAT: &str = "rehearsal-moderator";

/// Everything a [`Rehearsal`] is built and started from: recorded at the head
/// of the session's decision log, so a replay builds the same one. The files' texts, not
/// their paths: the replay needs no file.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RehearsalSetup {
    /// The panel configuration (`PANEL`, YAML).
    pub panel_yaml: String,
    /// The deck's path as the session config names it, and its text (`DECK`).
    pub deck_path: String,
    pub deck_text: String,
    /// The phrase library (Markdown); empty: the built-in phrases.
    pub phrases: String,
    /// The research notes (`INTEL`), if any.
    pub intel: Option<String>,
    /// Each panelist's persona style, from its template.
    pub styles: BTreeMap<String, String>,
    pub config: Config,
    /// The presenter's last session, as its history remembers it (none: a first or a
    /// fresh session).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous: Option<PastSession>,
}

impl RehearsalSetup {
    pub fn build(&self) -> Result<Rehearsal, ConfigError> {
        self.build_reporting().map(|(rehearsal, _)| rehearsal)
    }

    /// [`RehearsalSetup::build`], with what the phrase library skipped or leaves out in
    /// the panel's language, for the node to report.
    pub fn build_reporting(&self) -> Result<(Rehearsal, LoadReport), ConfigError> {
        let panel = PanelConfig::from_yaml(&self.panel_yaml)?;
        let (phrases, report) = PhraseLibrary::load(&self.phrases, panel.language);
        let rehearsal = Rehearsal::new(panel, Deck::parse(&self.deck_text), phrases, self.config)?
            .with_previous(self.previous.clone());
        Ok((rehearsal, report))
    }

    /// What [`Rehearsal::start`] is given.
    pub fn briefing(&self) -> Briefing<'_> {
        Briefing {
            deck_path: &self.deck_path,
            deck_text: &self.deck_text,
            intel: self.intel.as_deref(),
            styles: self.styles.clone(),
        }
    }
}

/// What the files of a session start with, read by the node.
#[derive(Debug, Clone, Default)]
pub struct Briefing<'a> {
    pub deck_path: &'a str,
    pub deck_text: &'a str,
    /// Research notes for `external-intel.md`, if any.
    pub intel: Option<&'a str>,
    /// Each panelist's persona style, from its template.
    pub styles: BTreeMap<String, String>,
}
