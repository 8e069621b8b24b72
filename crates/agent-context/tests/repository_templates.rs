//! The repository's own templates (`templates/`, `session-templates/`) load, and sessions
//! can live outside the context root (a dataflow run's session folder).

use std::path::Path;

use agent_context::{AgentName, AssemblyCaps, ContextRow, ContextStore, SessionId};

fn repo() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

#[test]
fn repository_templates_load_and_assemble_in_a_separate_sessions_folder() {
    let sessions = tempfile::tempdir().unwrap();
    let store = ContextStore::open_with_sessions_dir(repo(), sessions.path()).unwrap();
    let moderator = store.moderator().expect("a moderator template").clone();
    let template = store.template(&moderator).unwrap();
    assert_eq!(template.persona.display_name, "Diana Chen");
    assert!(template.documents.contains_key("phrase-library.md"));
    assert!(template.documents.contains_key("orchestration.md"));
    for (agent, name) in [
        ("skeptic", "Marcus Webb"),
        ("analyst", "Priya Sharma"),
        ("contrarian", "James O'Brien"),
    ] {
        let agent = AgentName::new(agent).unwrap();
        let t = store.template(&agent).expect("panelist template");
        assert_eq!(t.persona.display_name, name);
        assert!(t.domain_knowledge.is_some(), "{agent}: domain-knowledge.md");
    }
    let id = SessionId::new("run").unwrap();
    store.create_session(&id, 1).unwrap();
    assert!(
        sessions
            .path()
            .join("run/shared/session-config.md")
            .exists()
    );
    assert!(!repo().join("sessions/run").exists());
    let skeptic = AgentName::new("skeptic").unwrap();
    let context = store
        .assemble(&id, &skeptic, AssemblyCaps::default())
        .unwrap();
    assert_eq!(context.parts[0].row, ContextRow::Persona);
    assert_eq!(context.parts[1].row, ContextRow::DomainKnowledge);
    store.freeze(&id, 2).unwrap();
    assert!(store.verify(&id).unwrap().is_intact());
    // Leave the temporary folder removable.
    for entry in walk(&sessions.path().join("run")) {
        let mut p = std::fs::metadata(&entry).unwrap().permissions();
        #[allow(clippy::permissions_set_readonly_false)]
        p.set_readonly(false);
        std::fs::set_permissions(&entry, p).unwrap();
    }
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = vec![dir.to_owned()];
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        if e.path().is_dir() {
            out.extend(walk(&e.path()));
        } else {
            out.push(e.path());
        }
    }
    out
}
