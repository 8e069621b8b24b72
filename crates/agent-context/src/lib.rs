//! Agent context: "Agent character is immutable; agent context is session-scoped."
//!
//! Every agent has a fixed identity in `templates/<agent>/` (a persona with TOML front
//! matter, optional domain knowledge), read-only at run time. What it knows during a
//! session lives in `sessions/<id>/`, created from the blueprints in
//! `session-templates/` and changed only as each file's mutability allows. At the end
//! the session is frozen into a read-only archive with a `MANIFEST.sha256`.
//!
//! Pure rules, no I/O:
//! - [`id`]: session ids and agent names that can never escape their folder;
//! - [`layout`]: the directory tree, per-file mutability, the assembly table's rows;
//! - [`template`]: persona front matter parsing and the conversion for the LLM bridge;
//! - [`rules`]: which writes each mutability allows, and the ledger record;
//! - [`assembly`]: context assembly in table order with size caps;
//! - [`manifest`]: the checksum manifest of a frozen session.
//!
//! The file system: [`store`], a thin layer that applies those rules to a root folder.
//! Nothing here reads a clock; times are passed in.
//!
//! How a node uses it:
//!
//! ```no_run
//! use agent_context::{AgentName, AssemblyCaps, ContextStore, FileRef, SessionFile, SessionId};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // At start: load and validate the templates (a broken persona fails here, naming
//! // the file), then create the session folder from the blueprints.
//! let store = ContextStore::open("agents")?;
//! let id = SessionId::new("2025-06-01-board-rehearsal")?;
//! store.create_session(&id, 1_717_200_000_000)?;
//! store.write(&id, &FileRef::shared(SessionFile::DeckContent)?, "Slide 1: ...")?;
//!
//! // During the session: append every final transcript segment, ...
//! let transcript = FileRef::shared(SessionFile::PresenterTranscript)?;
//! store.append(&id, &transcript, "[00:42] We grew 300 % last year.\n")?;
//! // ... and build the prompt context for each agent call.
//! let skeptic = AgentName::new("skeptic")?;
//! let context = store.assemble(&id, &skeptic, AssemblyCaps::default())?;
//! let _system_prompt: &str = &context.prompt;
//!
//! // At the end: freeze into a read-only archive; verify it any time later.
//! store.freeze(&id, 1_717_203_600_000)?;
//! assert!(store.verify(&id)?.is_intact());
//! # Ok(())
//! # }
//! ```

pub mod assembly;
pub mod id;
pub mod layout;
pub mod manifest;
pub mod rules;
pub mod store;
pub mod template;

pub use assembly::{AssembledContext, AssemblyCaps, ContextPart, Cut, RowText, assemble};
pub use id::{AgentName, IdError, SessionId};
pub use layout::{ContextRow, FileRef, FileRefError, Layout, Mutability, Owner, SessionFile};
pub use manifest::{Discrepancy, Manifest, ManifestError};
pub use rules::{LedgerRecord, RuleViolation, WriteKind};
pub use store::{ContextError, ContextStore, SessionRecord, VerifyReport};
pub use template::{AgentTemplate, PersonaTemplate, TemplateError};
