//! Everything the node reads from the environment and the files at start: its settings.

use std::path::PathBuf;

use agent_context::{AgentName, ContextStore};
use eyre::{Context, bail, eyre};
use rehearsal_core::rehearsal::MODERATOR;
use rehearsal_core::{Deck, PanelConfig};

pub struct Setup {
    pub config: PanelConfig,
    /// The `PANEL` file's text (checked: it parses to `config`).
    pub panel_yaml: String,
    pub deck_path: String,
    /// The `DECK` file's text (checked: it holds slides).
    pub deck_text: String,
    /// The phrase library file: where it comes from and its text; `None`: the built-in
    /// one. Loaded once, by the rehearsal's setup.
    pub phrases: Option<(String, String)>,
    pub store_root: PathBuf,
    /// Research notes for `external-intel.md` (`INTEL`, a Markdown file), if any.
    pub intel: Option<String>,
    /// Whose history the session joins (`PRESENTER_*`).
    pub presenter: Presenter,
    /// `PACE_WITH_PLAYBACK`: a line is over when the player reports it; `None`: when the
    /// player's report is wired.
    pub pace_with_playback: Option<bool>,
}

/// The presenter whose history the session joins.
pub struct Presenter {
    /// `PRESENTER_NAME`; `None`: the deck's title.
    pub name: Option<String>,
    /// `PRESENTER_HISTORY_DIR`; `None`: `presenters/` beside the session folder.
    pub history_dir: Option<PathBuf>,
    /// `PRESENTER_FRESH`: the panel is not told the last session (this one is still added).
    pub fresh: bool,
}

impl Setup {
    pub fn from_env() -> eyre::Result<Self> {
        let panel_path = node_kit::env_opt("PANEL")
            .ok_or_else(|| eyre!("PANEL is not set (the panel configuration, YAML)"))?;
        let panel = std::fs::read_to_string(&panel_path)
            .with_context(|| format!("cannot read PANEL file {panel_path:?}"))?;
        let config =
            PanelConfig::from_yaml(&panel).map_err(|e| eyre!("PANEL {panel_path}: {e}"))?;
        let deck_path = node_kit::env_opt("DECK")
            .ok_or_else(|| eyre!("DECK is not set (the slide deck, Markdown)"))?;
        let deck_text = std::fs::read_to_string(&deck_path)
            .with_context(|| format!("cannot read DECK file {deck_path:?}"))?;
        let deck = Deck::parse(&deck_text);
        if deck.is_empty() {
            bail!("DECK {deck_path}: no slides (one `## Title` heading per slide)");
        }
        let root = node_kit::env_opt("AGENTS_ROOT").ok_or_else(|| {
            eyre!("AGENTS_ROOT is not set (the folder holding templates/ and session-templates/)")
        })?;
        let store_root = PathBuf::from(&root);
        let store = ContextStore::open(&store_root)
            .map_err(|e| eyre!("agent templates in AGENTS_ROOT {root}: {e}"))?;
        for agent in &config.agents {
            let known = AgentName::new(agent.name.as_str())
                .ok()
                .is_some_and(|a| store.template(&a).is_some());
            if !known {
                bail!(
                    "panel agent `{}` has no template: expected {root}/templates/{}/persona.md",
                    agent.name,
                    agent.name
                );
            }
        }
        let moderator = AgentName::new(MODERATOR).expect("valid name");
        let Some(template) = store.template(&moderator) else {
            bail!("no moderator template: expected {root}/templates/{MODERATOR}/persona.md");
        };
        let phrases = match node_kit::conduct::read_phrases("PHRASES")? {
            Some(file) => Some(file),
            None => match template.documents.get("phrase-library.md") {
                Some(text) => Some((
                    format!("{root}/templates/{MODERATOR}/phrase-library.md"),
                    text.clone(),
                )),
                None => {
                    tracing::warn!(
                        "no phrase library (PHRASES or the moderator template's phrase-library.md); using the built-in phrases"
                    );
                    None
                }
            },
        };
        let intel = match node_kit::env_opt("INTEL") {
            Some(path) => Some(
                std::fs::read_to_string(&path)
                    .with_context(|| format!("cannot read INTEL file {path:?}"))?,
            ),
            None => None,
        };
        Ok(Self {
            config,
            panel_yaml: panel,
            deck_path,
            deck_text,
            phrases,
            store_root,
            intel,
            presenter: Presenter {
                name: node_kit::env_opt("PRESENTER_NAME"),
                history_dir: node_kit::env_opt("PRESENTER_HISTORY_DIR").map(PathBuf::from),
                fresh: node_kit::env_flag("PRESENTER_FRESH", false)?,
            },
            pace_with_playback: node_kit::env_flag_opt("PACE_WITH_PLAYBACK")?,
        })
    }
}
