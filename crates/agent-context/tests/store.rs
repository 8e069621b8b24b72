//! File-system tests on temporary copies of the fixture tree.

mod common;
use common::copy_tree;

use std::fs;
use std::path::{Path, PathBuf};

use agent_context::assembly::CUT_HEAD_MARKER;
use agent_context::{
    AgentName, AssemblyCaps, ContextError, ContextRow, ContextStore, Cut, Discrepancy, FileRef,
    RuleViolation, SessionFile, SessionId,
};
use tempfile::TempDir;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/agents")
}

/// Makes a frozen tree writable again so the temporary folder can be removed by any user.
fn make_writable(dir: &Path) {
    #[allow(clippy::permissions_set_readonly_false)]
    fn writable(p: &Path) {
        let mut perms = fs::metadata(p).unwrap().permissions();
        perms.set_readonly(false);
        fs::set_permissions(p, perms).unwrap();
    }
    writable(dir);
    for entry in fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_dir() {
            make_writable(&entry.path());
        } else {
            writable(&entry.path());
        }
    }
}

struct Env {
    dir: TempDir,
    store: ContextStore,
    id: SessionId,
}

impl Env {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        copy_tree(&fixture(), dir.path());
        let store = ContextStore::open(dir.path()).unwrap();
        let id = SessionId::new("rehearsal-1").unwrap();
        store.create_session(&id, 1_000).unwrap();
        Self { dir, store, id }
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn session_dir(&self) -> PathBuf {
        self.root().join("sessions").join(self.id.as_str())
    }
}

impl Drop for Env {
    fn drop(&mut self) {
        let sessions = self.dir.path().join("sessions");
        if sessions.exists() {
            make_writable(&sessions);
        }
    }
}

fn agent(name: &str) -> AgentName {
    AgentName::new(name).unwrap()
}

fn shared(file: SessionFile) -> FileRef {
    FileRef::shared(file).unwrap()
}

fn own(name: &str, file: SessionFile) -> FileRef {
    FileRef::agent(&agent(name), file).unwrap()
}

fn tree_snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_dir() {
            out.extend(tree_snapshot(&entry.path()));
        } else {
            out.push((entry.path(), fs::read(entry.path()).unwrap()));
        }
    }
    out.sort();
    out
}

#[test]
fn loads_agents_from_the_templates_folder() {
    let env = Env::new();
    let names: Vec<&str> = env.store.agents().map(|a| a.as_str()).collect();
    assert_eq!(names, ["analyst", "contrarian", "moderator", "skeptic"]);
    assert_eq!(env.store.moderator().map(|a| a.as_str()), Some("moderator"));
    assert_eq!(env.store.panelists().count(), 3);
    let skeptic = env.store.template(&agent("skeptic")).unwrap();
    assert_eq!(skeptic.persona.display_name, "Marcus Webb");
    assert!(
        skeptic
            .domain_knowledge
            .as_deref()
            .unwrap()
            .contains("LTV/CAC")
    );
    let moderator = env.store.template(&agent("moderator")).unwrap();
    assert_eq!(moderator.persona.display_name, "Diana Chen");
    assert!(moderator.domain_knowledge.is_none());
    assert!(moderator.documents.contains_key("orchestration.md"));
    assert!(moderator.documents.contains_key("phrase-library.md"));
    let contrarian = env.store.template(&agent("contrarian")).unwrap();
    assert_eq!(contrarian.persona.display_name, "James O'Brien");
}

#[test]
fn persona_converts_for_the_llm_bridge() {
    let env = Env::new();
    for a in env.store.agents() {
        let persona = &env.store.template(a).unwrap().persona;
        let bridge = agent_bridge::persona::Persona::from_toml(&persona.to_persona_toml()).unwrap();
        assert_eq!(bridge.name, persona.name);
        assert_eq!(bridge.spoken_name(), persona.display_name);
        assert_eq!(bridge.voice.as_deref(), Some(persona.voice.as_str()));
        assert_eq!(bridge.system_prompt, persona.system_prompt);
    }
}

#[test]
fn create_copies_the_blueprints() {
    let env = Env::new();
    let dir = env.session_dir();
    for rel in [
        "shared/session-config.md",
        "shared/presenter-transcript.md",
        "shared/exchange-history.md",
        "moderator/session-state.md",
        "moderator/debrief-notes.md",
        "skeptic/focus-brief.md",
        "analyst/exchange-notes.md",
        "contrarian/candidate-question.md",
        "contrarian/presenter-profile.md",
    ] {
        assert!(dir.join(rel).is_file(), "{rel}");
    }
    assert!(!dir.join("moderator/focus-brief.md").exists());
    assert!(!dir.join("skeptic/session-state.md").exists());
    assert_eq!(
        fs::read(dir.join("analyst/exchange-notes.md")).unwrap(),
        fs::read(fixture().join("session-templates/panelist/exchange-notes.md")).unwrap()
    );
    // No staging folder is left behind.
    let leftovers: Vec<_> = fs::read_dir(env.root().join("sessions"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(leftovers, vec![std::ffi::OsString::from("rehearsal-1")]);
    let record = env.store.session_record(&env.id).unwrap();
    assert_eq!(record.created_ms, 1_000);
    assert_eq!(record.frozen_ms, None);
    assert_eq!(env.store.sessions().unwrap(), vec![env.id.clone()]);
    assert!(matches!(
        env.store.create_session(&env.id, 2_000),
        Err(ContextError::SessionExists(_))
    ));
}

#[test]
fn a_session_for_some_agents_has_only_their_folders() {
    let env = Env::new();
    let id = SessionId::new("debate-1").unwrap();
    env.store
        .create_session_for(&id, &[agent("skeptic"), agent("moderator")], 5)
        .unwrap();
    let dir = env.root().join("sessions/debate-1");
    assert!(dir.join("shared/exchange-history.md").is_file());
    assert!(dir.join("skeptic/exchange-notes.md").is_file());
    assert!(dir.join("moderator/session-state.md").is_file());
    assert!(!dir.join("analyst").exists());
    assert_eq!(
        env.store.session_record(&id).unwrap().agents,
        ["moderator", "skeptic"]
    );
    let unknown = SessionId::new("debate-2").unwrap();
    assert!(matches!(
        env.store
            .create_session_for(&unknown, &[agent("economist")], 5),
        Err(ContextError::UnknownAgent(name)) if name == "economist"
    ));
    assert!(!env.store.session_exists(&unknown));
}

#[test]
fn the_next_free_session_id_is_taken() {
    let env = Env::new();
    let prefix = SessionId::new("context").unwrap();
    let first = env
        .store
        .create_next_session(&prefix, &[agent("skeptic")], 1)
        .unwrap();
    let second = env
        .store
        .create_next_session(&prefix, &[agent("skeptic")], 2)
        .unwrap();
    assert_eq!((first.as_str(), second.as_str()), ("context", "context-2"));
}

#[test]
fn write_once_twice_is_an_error() {
    let env = Env::new();
    let deck = shared(SessionFile::DeckContent);
    env.store
        .write(&env.id, &deck, "Slide 1: ARR $4M\n")
        .unwrap();
    let err = env
        .store
        .write(&env.id, &deck, "Slide 1: ARR $40M\n")
        .unwrap_err();
    assert!(matches!(
        err,
        ContextError::Rule {
            violation: RuleViolation::AlreadyWritten,
            ..
        }
    ));
    assert!(
        err.to_string()
            .contains("sessions/rehearsal-1/shared/deck-content.md")
    );
    assert_eq!(
        env.store.read(&env.id, &deck).unwrap().as_deref(),
        Some("Slide 1: ARR $4M\n")
    );
    // Blueprint placeholders do not count as a write.
    let brief = own("skeptic", SessionFile::FocusBrief);
    env.store
        .write(&env.id, &brief, "Target: churn.\n")
        .unwrap();
    assert!(env.store.write(&env.id, &brief, "again").is_err());
    // Write-once files cannot be appended to.
    assert!(matches!(
        env.store
            .append(&env.id, &shared(SessionFile::SessionConfig), "x"),
        Err(ContextError::Rule {
            violation: RuleViolation::NotAppendOnly,
            ..
        })
    ));
}

#[test]
fn write_few_has_a_limit() {
    let env = Env::new();
    let intel = shared(SessionFile::ExternalIntel);
    for n in 0..agent_context::layout::EXTERNAL_INTEL_MAX_WRITES {
        env.store
            .write(&env.id, &intel, &format!("news round {n}"))
            .unwrap();
    }
    assert!(matches!(
        env.store.write(&env.id, &intel, "one more"),
        Err(ContextError::Rule {
            violation: RuleViolation::WriteLimit { .. },
            ..
        })
    ));
}

#[test]
fn append_only_files_only_grow() {
    let env = Env::new();
    let transcript = shared(SessionFile::PresenterTranscript);
    env.store
        .append(&env.id, &transcript, "[00:01] Good morning.\n")
        .unwrap();
    env.store
        .append(&env.id, &transcript, "[00:05] Our ARR is $4M.\n")
        .unwrap();
    assert_eq!(
        env.store.read(&env.id, &transcript).unwrap().unwrap(),
        "# Presenter transcript\n\n[00:01] Good morning.\n[00:05] Our ARR is $4M.\n"
    );
    assert!(matches!(
        env.store.write(&env.id, &transcript, "rewritten history"),
        Err(ContextError::Rule {
            violation: RuleViolation::AppendOnly,
            ..
        })
    ));
    // The moderator's debrief notes accumulate too.
    let debrief = own("moderator", SessionFile::DebriefNotes);
    env.store
        .append(&env.id, &debrief, "- slide 3 went well\n")
        .unwrap();
    assert!(env.store.write(&env.id, &debrief, "x").is_err());
}

#[test]
fn an_append_cut_off_between_its_text_and_its_record_goes_on() {
    // A recorder killed mid-append (seen in the recovery test): the text is in the
    // file, its record still the one before, with the append pending.
    let env = Env::new();
    let notes = own("analyst", SessionFile::ExchangeNotes);
    env.store.append(&env.id, &notes, "first\n").unwrap();
    let path = env.session_dir().join("analyst/exchange-notes.md");
    let ledger = env
        .session_dir()
        .join(".ledger/analyst/exchange-notes.md.json");
    let before = fs::read_to_string(&path).unwrap();
    let recorded = fs::read_to_string(&ledger).unwrap();
    env.store.append(&env.id, &notes, "second\n").unwrap();
    let pending: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&ledger).unwrap()).unwrap();
    let mut cut_off: serde_json::Value = serde_json::from_str(&recorded).unwrap();
    cut_off["pending"] = pending;
    fs::write(&ledger, cut_off.to_string()).unwrap();
    // The next append finds the file as the pending record says, and goes on.
    env.store.append(&env.id, &notes, "third\n").unwrap();
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        format!("{before}second\nthird\n")
    );
    // Cut off before its text reached the file: the file is as recorded, and goes on.
    let recorded = fs::read_to_string(&ledger).unwrap();
    let mut cut_off: serde_json::Value = serde_json::from_str(&recorded).unwrap();
    cut_off["pending"] = serde_json::from_str(&recorded).unwrap();
    cut_off["pending"]["len"] = serde_json::json!(9999);
    fs::write(&ledger, cut_off.to_string()).unwrap();
    env.store.append(&env.id, &notes, "fourth\n").unwrap();
    // Anything else in the file is still tampering.
    let text = fs::read_to_string(&path).unwrap() + "written outside\n";
    fs::write(&path, text).unwrap();
    assert!(matches!(
        env.store.append(&env.id, &notes, "fifth\n"),
        Err(ContextError::Tampered { .. })
    ));
}

#[test]
fn tampering_with_an_append_only_file_is_detected() {
    let env = Env::new();
    let notes = own("analyst", SessionFile::ExchangeNotes);
    env.store
        .append(&env.id, &notes, "asked about n\n")
        .unwrap();
    let path = env.session_dir().join("analyst/exchange-notes.md");
    // Same length, different content.
    let text = fs::read_to_string(&path).unwrap().replace("asked", "ASKED");
    fs::write(&path, text).unwrap();
    let err = env.store.append(&env.id, &notes, "more\n").unwrap_err();
    assert!(matches!(err, ContextError::Tampered { .. }), "{err}");
    assert!(!fs::read_to_string(&path).unwrap().contains("more"));
    // A vanished file is tampering too.
    let profile = own("analyst", SessionFile::PresenterProfile);
    fs::remove_file(env.session_dir().join("analyst/presenter-profile.md")).unwrap();
    assert!(matches!(
        env.store.append(&env.id, &profile, "x"),
        Err(ContextError::Tampered { .. })
    ));
}

#[test]
fn overwrite_is_atomic_and_leaves_no_temporary_file() {
    let env = Env::new();
    let question = own("skeptic", SessionFile::CandidateQuestion);
    for n in 0..5 {
        env.store
            .write(
                &env.id,
                &question,
                &format!("What is your CAC payback? ({n})"),
            )
            .unwrap();
    }
    assert_eq!(
        env.store.read(&env.id, &question).unwrap().as_deref(),
        Some("What is your CAC payback? (4)")
    );
    let state = own("moderator", SessionFile::SessionState);
    env.store
        .write(&env.id, &state, "state: EXCHANGE\n")
        .unwrap();
    let phrases = own("moderator", SessionFile::GeneratedPhrases);
    env.store
        .write(&env.id, &phrases, "- Over to you, Marcus.\n")
        .unwrap();
    env.store
        .write(&env.id, &phrases, "- Over to you, Priya.\n")
        .unwrap();
    let temporaries: Vec<_> = tree_snapshot(&env.session_dir())
        .into_iter()
        .map(|(p, _)| p)
        .filter(|p| p.file_name().unwrap().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(temporaries.is_empty(), "{temporaries:?}");
}

#[test]
fn writes_check_agents_and_ownership() {
    let env = Env::new();
    let ghost = FileRef::agent(&agent("ghost"), SessionFile::FocusBrief).unwrap();
    assert!(matches!(
        env.store.write(&env.id, &ghost, "x"),
        Err(ContextError::UnknownAgent(_))
    ));
    let other = SessionId::new("nope").unwrap();
    assert!(matches!(
        env.store
            .write(&other, &shared(SessionFile::DeckContent), "x"),
        Err(ContextError::NoSession(_))
    ));
}

#[test]
fn templates_are_never_written() {
    let env = Env::new();
    let before = tree_snapshot(&env.root().join("templates"));
    let transcript = shared(SessionFile::PresenterTranscript);
    env.store.append(&env.id, &transcript, "hello\n").unwrap();
    env.store
        .write(&env.id, &shared(SessionFile::DeckContent), "deck")
        .unwrap();
    env.store
        .assemble(&env.id, &agent("skeptic"), AssemblyCaps::default())
        .unwrap();
    env.store.freeze(&env.id, 9_000).unwrap();
    assert_eq!(tree_snapshot(&env.root().join("templates")), before);
}

#[test]
fn assembly_follows_the_table_for_a_panelist() {
    let env = Env::new();
    let s = &env.store;
    let id = &env.id;
    s.write(
        id,
        &shared(SessionFile::SessionConfig),
        "intensity: standard\n",
    )
    .unwrap();
    s.write(id, &shared(SessionFile::DeckContent), "Slide 1: ARR $4M\n")
        .unwrap();
    s.write(
        id,
        &shared(SessionFile::ExternalIntel),
        "Competitor raised $20M.\n",
    )
    .unwrap();
    s.append(
        id,
        &shared(SessionFile::PresenterTranscript),
        "[00:01] We grew 300 %.\n",
    )
    .unwrap();
    s.append(
        id,
        &shared(SessionFile::ExchangeHistory),
        "1. skeptic: CAC? resolved\n",
    )
    .unwrap();
    s.write(
        id,
        &own("skeptic", SessionFile::FocusBrief),
        "Target the 300 %.\n",
    )
    .unwrap();
    s.append(
        id,
        &own("skeptic", SessionFile::ExchangeNotes),
        "asked CAC\n",
    )
    .unwrap();
    s.append(
        id,
        &own("skeptic", SessionFile::PresenterProfile),
        "defensive on churn\n",
    )
    .unwrap();
    s.write(
        id,
        &own("skeptic", SessionFile::CandidateQuestion),
        "300 % of what base?",
    )
    .unwrap();
    // Another panelist's notes never leak into the skeptic's context.
    s.append(
        id,
        &own("analyst", SessionFile::ExchangeNotes),
        "ANALYST-ONLY\n",
    )
    .unwrap();

    let ctx = s
        .assemble(id, &agent("skeptic"), AssemblyCaps::default())
        .unwrap();
    let rows: Vec<ContextRow> = ctx.parts.iter().map(|p| p.row).collect();
    assert_eq!(rows, ContextRow::ALL.to_vec());
    assert_eq!(ctx.parts[0].path, "templates/skeptic/persona.md");
    assert!(ctx.parts[0].content.starts_with("You are Marcus Webb"));
    assert!(!ctx.parts[0].content.contains("+++"));
    assert_eq!(
        ctx.parts[8].path,
        "sessions/rehearsal-1/skeptic/exchange-notes.md"
    );
    assert!(!ctx.prompt.contains("ANALYST-ONLY"));
    let positions: Vec<usize> = ctx
        .parts
        .iter()
        .map(|p| {
            ctx.prompt
                .find(&format!("## {} ({})", p.label, p.path))
                .unwrap()
        })
        .collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]));
}

#[test]
fn assembly_skips_placeholders_and_serves_the_moderator() {
    let env = Env::new();
    // Fresh session: only headings and comments in the session files.
    let ctx = env
        .store
        .assemble(&env.id, &agent("analyst"), AssemblyCaps::default())
        .unwrap();
    let rows: Vec<ContextRow> = ctx.parts.iter().map(|p| p.row).collect();
    assert_eq!(rows, vec![ContextRow::Persona, ContextRow::DomainKnowledge]);
    let ctx = env
        .store
        .assemble(&env.id, &agent("moderator"), AssemblyCaps::default())
        .unwrap();
    assert_eq!(ctx.parts.len(), 1);
    assert!(ctx.prompt.contains("Diana Chen"));
    assert!(matches!(
        env.store
            .assemble(&env.id, &agent("ghost"), AssemblyCaps::default()),
        Err(ContextError::UnknownAgent(_))
    ));
}

#[test]
fn focus_brief_inputs_are_a_subset_in_table_order() {
    let env = Env::new();
    let s = &env.store;
    s.write(
        &env.id,
        &shared(SessionFile::ExternalIntel),
        "Rival raised $20M.\n",
    )
    .unwrap();
    s.write(&env.id, &shared(SessionFile::DeckContent), "Slide 1\n")
        .unwrap();
    s.append(
        &env.id,
        &shared(SessionFile::PresenterTranscript),
        "not an input\n",
    )
    .unwrap();
    let mut wanted = ContextRow::FOCUS_BRIEF_INPUTS.to_vec();
    wanted.reverse();
    let ctx = s
        .assemble_rows(
            &env.id,
            &agent("contrarian"),
            &wanted,
            AssemblyCaps::default(),
        )
        .unwrap();
    let rows: Vec<ContextRow> = ctx.parts.iter().map(|p| p.row).collect();
    assert_eq!(rows, ContextRow::FOCUS_BRIEF_INPUTS.to_vec());
    assert!(!ctx.prompt.contains("not an input"));
}

#[test]
fn assembly_keeps_the_newest_transcript_under_caps() {
    let env = Env::new();
    let transcript = shared(SessionFile::PresenterTranscript);
    for n in 0..200 {
        env.store
            .append(
                &env.id,
                &transcript,
                &format!("[{n:03}] sentence number {n}\n"),
            )
            .unwrap();
    }
    let caps = AssemblyCaps {
        max_part_bytes: 1_000,
        max_total_bytes: 2_000,
    };
    let ctx = env
        .store
        .assemble(&env.id, &agent("skeptic"), caps)
        .unwrap();
    let part = ctx
        .parts
        .iter()
        .find(|p| p.row == ContextRow::PresenterTranscript)
        .unwrap();
    assert_eq!(part.cut, Cut::KeptTail);
    assert!(part.content.starts_with(CUT_HEAD_MARKER));
    assert!(part.content.ends_with("[199] sentence number 199\n"));
    assert!(ctx.content_bytes() <= 2_000);
}

#[test]
fn freeze_refuses_writes_and_verifies() {
    let env = Env::new();
    let transcript = shared(SessionFile::PresenterTranscript);
    env.store
        .append(&env.id, &transcript, "[00:01] Hi.\n")
        .unwrap();
    let manifest = env.store.freeze(&env.id, 5_000).unwrap();
    assert!(env.store.is_frozen(&env.id));
    assert!(manifest.get("shared/presenter-transcript.md").is_some());
    assert!(manifest.get(".ledger/session.json").is_some());
    assert!(manifest.get("MANIFEST.sha256").is_none());
    assert_eq!(
        env.store.session_record(&env.id).unwrap().frozen_ms,
        Some(5_000)
    );

    // The manifest on disk is sorted `sha256sum` text.
    let text = fs::read_to_string(env.session_dir().join("MANIFEST.sha256")).unwrap();
    let paths: Vec<&str> = text.lines().map(|l| &l[66..]).collect();
    let mut sorted = paths.clone();
    sorted.sort();
    assert_eq!(paths, sorted);

    // Every file and folder is read-only.
    for (path, _) in tree_snapshot(&env.session_dir()) {
        assert!(
            fs::metadata(&path).unwrap().permissions().readonly(),
            "{path:?}"
        );
    }
    assert!(
        fs::metadata(env.session_dir())
            .unwrap()
            .permissions()
            .readonly()
    );

    // All writes are refused.
    assert!(matches!(
        env.store.append(&env.id, &transcript, "late\n"),
        Err(ContextError::Frozen { .. })
    ));
    assert!(matches!(
        env.store.write(
            &env.id,
            &own("skeptic", SessionFile::CandidateQuestion),
            "q"
        ),
        Err(ContextError::Frozen { .. })
    ));
    // Reading and assembling still work (review after the session).
    assert!(env.store.read(&env.id, &transcript).unwrap().is_some());
    assert!(
        env.store
            .assemble(&env.id, &agent("skeptic"), AssemblyCaps::default())
            .is_ok()
    );

    let report = env.store.verify(&env.id).unwrap();
    assert!(report.is_intact(), "{report:?}");
    assert_eq!(report.checked, manifest.len());
    // Freezing again changes nothing.
    assert_eq!(env.store.freeze(&env.id, 6_000).unwrap(), manifest);
    assert_eq!(
        env.store.session_record(&env.id).unwrap().frozen_ms,
        Some(5_000)
    );
}

#[test]
fn modification_after_freeze_is_reported() {
    let env = Env::new();
    env.store.freeze(&env.id, 5_000).unwrap();
    make_writable(&env.session_dir());
    fs::write(env.session_dir().join("skeptic/focus-brief.md"), "forged").unwrap();
    fs::remove_file(env.session_dir().join("analyst/presenter-profile.md")).unwrap();
    fs::write(env.session_dir().join("shared/extra.md"), "added").unwrap();
    let report = env.store.verify(&env.id).unwrap();
    assert_eq!(
        report.discrepancies,
        vec![
            Discrepancy::Missing {
                path: "analyst/presenter-profile.md".into()
            },
            Discrepancy::Added {
                path: "shared/extra.md".into()
            },
            Discrepancy::Modified {
                path: "skeptic/focus-brief.md".into()
            },
        ]
    );
}

#[test]
fn verify_needs_a_frozen_session() {
    let env = Env::new();
    assert!(matches!(
        env.store.verify(&env.id),
        Err(ContextError::NotFrozen(_))
    ));
}

/// Opens a copy of the fixture after `edit` and returns the error text.
fn open_error(edit: impl FnOnce(&Path)) -> String {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixture(), dir.path());
    edit(dir.path());
    ContextStore::open(dir.path()).unwrap_err().to_string()
}

#[test]
fn broken_templates_are_clear_errors_naming_the_file() {
    let persona = "templates/skeptic/persona.md";
    let e = open_error(|r| fs::remove_file(r.join(persona)).unwrap());
    assert!(e.contains(persona) && e.contains("missing"), "{e}");

    let e = open_error(|r| fs::write(r.join(persona), "You are Marcus.").unwrap());
    assert!(e.contains(persona) && e.contains("front matter"), "{e}");

    let e = open_error(|r| fs::write(r.join(persona), "+++\nname = [\n+++\nbody").unwrap());
    assert!(e.contains(persona) && e.contains("bad front matter"), "{e}");

    let e = open_error(|r| {
        let text = fs::read_to_string(r.join(persona)).unwrap();
        fs::write(r.join(persona), text.replace("voice = \"en-us+m3\"\n", "")).unwrap();
    });
    assert!(e.contains(persona) && e.contains("voice"), "{e}");

    let e = open_error(|r| {
        let text = fs::read_to_string(r.join(persona)).unwrap();
        fs::write(
            r.join(persona),
            text.replace("name = \"skeptic\"", "name = \"cynic\""),
        )
        .unwrap();
    });
    assert!(e.contains(persona) && e.contains("cynic"), "{e}");

    let e = open_error(|r| fs::create_dir(r.join("templates/bad.name")).unwrap());
    assert!(e.contains("bad.name"), "{e}");

    let e = open_error(|r| {
        fs::write(r.join("session-templates/panelist/notes.md"), "x").unwrap();
    });
    assert!(e.contains("session-templates/panelist/notes.md"), "{e}");

    let e = open_error(|r| fs::create_dir(r.join("session-templates/skeptic")).unwrap());
    assert!(e.contains("session-templates/skeptic"), "{e}");

    let e = open_error(|r| {
        fs::create_dir(r.join("templates/shared")).unwrap();
        let text = fs::read_to_string(r.join(persona)).unwrap();
        let text = text.replace("name = \"skeptic\"", "name = \"shared\"");
        fs::write(r.join("templates/shared/persona.md"), text).unwrap();
    });
    assert!(
        e.contains("templates/shared") && e.contains("reserved"),
        "{e}"
    );

    let e = open_error(|r| fs::remove_dir_all(r.join("session-templates/shared")).unwrap());
    assert!(e.contains("session-templates/shared"), "{e}");
}

#[test]
fn agents_are_not_hard_coded() {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixture(), dir.path());
    let ethicist = dir.path().join("templates/ethicist");
    fs::create_dir(&ethicist).unwrap();
    fs::write(
        ethicist.join("persona.md"),
        "+++\nname = \"ethicist\"\ndisplay_name = \"Dr. Ines Vidal\"\nrole = \"ethicist\"\n\
         voice = \"en-us+f2\"\nstyle = \"principled\"\n+++\nYou are Dr. Ines Vidal.\n",
    )
    .unwrap();
    fs::remove_dir_all(dir.path().join("templates/contrarian")).unwrap();
    let store = ContextStore::open(dir.path()).unwrap();
    let id = SessionId::new("s2").unwrap();
    store.create_session(&id, 0).unwrap();
    let session = dir.path().join("sessions/s2");
    assert!(session.join("ethicist/focus-brief.md").is_file());
    assert!(!session.join("contrarian").exists());
    let ctx = store
        .assemble(&id, &agent("ethicist"), AssemblyCaps::default())
        .unwrap();
    assert_eq!(ctx.parts.len(), 1); // persona only; no domain knowledge
}
