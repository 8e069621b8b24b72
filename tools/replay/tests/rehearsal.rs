//! A pitch rehearsal recorded as the rehearsal moderator records it replays to the same
//! decisions; the same inputs under another setting show the first decision that
//! differs.

use std::{collections::VecDeque, path::PathBuf};

use conductor::Call;
use rehearsal_core::rehearsal::{Config, Input, Output, REHEARSAL_FORMAT, RehearsalSetup};
use voice_protocol::StreamStatus;

const DECK: &str = include_str!("../../../crates/rehearsal-core/examples/deck.md");
const PANELISTS: [&str; 3] = ["skeptic", "analyst", "contrarian"];

fn setup(paced: bool) -> RehearsalSetup {
    RehearsalSetup {
        panel_yaml:
            "intensity: moderate\nthresholds:\n  answer_end_silence_ms: 0\n  exchanges_per_break: 1\n"
                .into(),
        deck_path: "deck.md".into(),
        deck_text: DECK.into(),
        phrases: String::new(),
        intel: None,
        styles: PANELISTS
            .iter()
            .map(|p| ((*p).to_owned(), format!("{p}, briefly")))
            .collect(),
        config: Config { paced },
        previous: None,
    }
}

/// The presenter's side of the session.
enum Step {
    Presenter(&'static str),
    Control(&'static str),
    /// Time passes without input (due wake-ups are ticked).
    Wait(u64),
}

/// A rehearsal run through the conductor the way the node runs it (start, due ticks,
/// then each input), logged as the node logs it; the panel answers every request and
/// every turn.
struct Run<'s> {
    setup: &'s RehearsalSetup,
    conductor: rehearsal_core::Rehearsal,
    log: String,
    /// What the panel says next: the bridges' replies and the turns' text.
    panel: VecDeque<Input>,
}

impl Run<'_> {
    fn call(&mut self, call: Call<Input>, at: u64) {
        let out = conductor::call(&mut self.conductor, self.setup, call.clone(), at);
        self.log
            .push_str(&decision_log::step_line(at * 1_000_000, &call, &out));
        self.log.push('\n');
        for o in &out {
            match o {
                Output::Request(request) => {
                    for p in PANELISTS {
                        self.panel.push_back(Input::Reply {
                            input: format!("reply_{p}"),
                            speaker: Some(p.to_owned()),
                            request_id: Some(request.id.clone()),
                            text: format!("{p} asks: what does picking cost per site?"),
                            error: None,
                        });
                    }
                }
                Output::Turn(turn) => {
                    for (part, status) in [
                        ("What does picking ", StreamStatus::Started),
                        ("cost per site?", StreamStatus::Ended),
                    ] {
                        self.panel.push_back(Input::Text {
                            agent: turn.agent.clone(),
                            question_id: Some(turn.question_id),
                            text: Ok(part.to_owned()),
                            status: Some(status),
                            error: None,
                        });
                    }
                }
                _ => {}
            }
        }
    }

    /// Ticks every wake-up due by `limit`, as the node's wait would.
    fn ticks_until(&mut self, limit: u64) {
        let mut last = None;
        while let Some(wake) = self.conductor.next_wake() {
            if wake > limit || last == Some(wake) || self.conductor.finished() {
                break;
            }
            last = Some(wake);
            self.call(Call::Tick, wake);
        }
    }
}

fn record(setup: &RehearsalSetup) -> String {
    use Step::*;
    let script = [
        Presenter("Good morning, we are Acme Robotics."),
        Control("slide 1"),
        Presenter("Picking is more than half of labour cost in a warehouse."),
        Control("slide 2"),
        Presenter("We cut picking cost by sixty percent; I think that answered it."),
        Wait(20_000),
        Control("slide 3"),
        Presenter("Our market is forty billion dollars and growing."),
        Control("next"),
        Presenter("Thanks, I think that answered it."),
        Control("open_qa"),
        Presenter("Our pilots paid back in nine months, answered."),
        Wait(20_000),
        Presenter("Margins improve with every site, answered."),
        Control("end"),
        Wait(60_000),
    ];
    let mut run = Run {
        setup,
        conductor: setup.build().unwrap(),
        log: decision_log::setup_line(REHEARSAL_FORMAT, setup) + "\n",
        panel: VecDeque::new(),
    };
    run.call(Call::Start, 0);
    let mut at = 0;
    for step in script {
        let input = match step {
            Presenter(text) => Input::Presenter {
                speaker: Some("presenter".into()),
                text: text.into(),
                ended: true,
            },
            Control(command) => Input::Control(command.into()),
            Wait(ms) => {
                at += ms;
                run.ticks_until(at);
                continue;
            }
        };
        at += 1_000;
        run.ticks_until(at);
        run.call(Call::Input(input), at);
        // The panel speaks before the presenter goes on.
        while let Some(said) = run.panel.pop_front() {
            at += 300;
            run.ticks_until(at);
            run.call(Call::Input(said), at);
        }
    }
    run.call(Call::Input(Input::Stop), at + 1_000);
    run.log
}

fn session_with(name: &str, log: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("replay-rehearsal-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("decisions")).unwrap();
    std::fs::write(dir.join("decisions/rehearsal-moderator.jsonl"), log).unwrap();
    dir
}

#[test]
fn a_recorded_rehearsal_replays_to_the_same_decisions() {
    let log = record(&setup(false));
    // The run asked, called panelists and wrote the debrief: there is something to compare.
    for made in ["Turn(", "Request(", "Debrief {", "FreezeContext"] {
        assert!(log.contains(made), "{made} missing from {log}");
    }
    let dir = session_with("same", &log);
    let replays = replay::replay_session(&dir, None, &[]).unwrap();
    assert_eq!(replays.len(), 1);
    assert_eq!(replays[0].format, REHEARSAL_FORMAT);
    let segment = &replays[0].segments[0];
    assert_eq!(segment.first_difference, None, "{segment:#?}");
    assert_eq!(segment.steps, log.lines().count() - 1);
    assert!(segment.decisions > 20, "{segment:?}");
    // `--print`: every decision on a line of its own, then the summary.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_replay"))
        .arg(&dir)
        .arg("--print")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), segment.decisions + 1, "{text}");
    assert!(
        lines[..segment.decisions]
            .iter()
            .all(|l| l.starts_with("rehearsal-moderator "))
    );
    assert!(lines[segment.decisions].ends_with(" 0 differ"), "{text}");
}

#[test]
fn another_setting_shows_the_first_differing_decision() {
    let log = record(&setup(false));
    // The same inputs, but a moderator waiting for its lines to be heard
    // (`PACE_WITH_PLAYBACK`): the panelist's turn no longer comes with the transition.
    let mut lines = log.lines();
    lines.next();
    let other = std::iter::once(decision_log::setup_line(REHEARSAL_FORMAT, &setup(true)))
        .chain(lines.map(str::to_owned))
        .collect::<Vec<_>>()
        .join("\n")
        + "\n";
    let dir = session_with("other", &other);
    let replays = replay::replay_session(&dir, None, &[]).unwrap();
    let segment = &replays[0].segments[0];
    let difference = segment.first_difference.clone().expect("a difference");
    // Everything before it was decided alike; comparing stops at it.
    assert!(difference.step > 0 && segment.decisions > 0, "{segment:#?}");
    assert_eq!(segment.steps, difference.step + 1);
    assert_ne!(difference.recorded, difference.replayed);
    // It is the first step where the two runs part: every earlier step replays alike
    // under the other panel, checked independently here.
    let recorded: Vec<decision_log::Segment<RehearsalSetup, Call<Input>>> =
        decision_log::read(&log).unwrap();
    let mut conductor = setup(true).build().unwrap();
    let briefing_setup = setup(true);
    let first = recorded[0]
        .steps
        .iter()
        .position(|step| {
            let t = step.at_ns / 1_000_000;
            let out = conductor::call(&mut conductor, &briefing_setup, step.input.clone(), t);
            decision_log::decisions(&out) != step.decisions
        })
        .unwrap();
    assert_eq!(difference.step, first);
    // The command line says so and exits 1.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_replay"))
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!("first difference at input {}", first + 1)),
        "{text}"
    );
}
