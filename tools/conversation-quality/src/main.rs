//! `conversation-quality SESSION_DIR... --agenda FILE [--templates DIR] [--label NAME]...
//! [--json] [--skip-secs N] [--explain] [--no-header]`: scores recorded sessions with the
//! conversation-quality metrics (crates/conversation-quality) and prints a Markdown table
//! row per session, or one JSON object per session and line with `--json`. `--explain`
//! lists every failing line and why on stderr. Unreadable input exits with status 2.

use std::{
    fs,
    path::{Path, PathBuf},
    process::ExitCode,
};

use clap::Parser;
use conversation_quality::{
    Agenda, Options, Persona, Report, Scorer, Session, parse_events, parse_transcript,
};
use eyre::{WrapErr as _, bail, eyre};
use serde::Serialize;

#[derive(Parser)]
#[command(
    name = "conversation-quality",
    about = "Score recorded sessions: echoes, topic, recited instructions, identity slips, \
             answers to the human, empty turns, markup, pleasantry pairs, distinct-2, the language asked"
)]
struct Args {
    /// Session folders (each holds transcript.jsonl, and events.jsonl if recorded).
    #[arg(required = true, value_name = "SESSION_DIR")]
    sessions: Vec<PathBuf>,
    /// The conversation's subject: YAML with `topic`, `agenda` and `lexicon`
    /// (dataflows/agendas/*.yml).
    #[arg(long, value_name = "FILE")]
    agenda: PathBuf,
    /// The folder of agent templates whose `*/persona.md` give names and instructions.
    #[arg(long, value_name = "DIR", default_value = "templates")]
    templates: PathBuf,
    /// A session's name in the output, one per session in order (default: the folder name).
    #[arg(long = "label", value_name = "NAME")]
    labels: Vec<String>,
    /// One JSON object per session and line instead of a Markdown table.
    #[arg(long)]
    json: bool,
    /// Score only lines that start after this many seconds (earlier lines are context).
    #[arg(long, value_name = "N", default_value_t = 0.0)]
    skip_secs: f64,
    /// List every failing line with its reasons on stderr.
    #[arg(long)]
    explain: bool,
    /// Print the table's rows without its header (to append to an earlier table).
    #[arg(long)]
    no_header: bool,
}

/// One session's result, as printed.
#[derive(Serialize)]
struct Scored {
    label: String,
    session: PathBuf,
    rates: Rates,
    #[serde(flatten)]
    report: Report,
}

/// The ratios as fractions in [0, 1] (`null` with nothing to count).
#[derive(Serialize)]
struct Rates {
    echo: Option<f64>,
    on_topic: Option<f64>,
    human_answers_addressed: Option<f64>,
    distinct_2: Option<f64>,
    in_language: Option<f64>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("conversation-quality: {err:#}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &Args) -> eyre::Result<()> {
    if args.labels.len() > args.sessions.len() {
        bail!(
            "{} labels for {} sessions: give at most one --label per session",
            args.labels.len(),
            args.sessions.len()
        );
    }
    if !(args.skip_secs >= 0.0 && args.skip_secs.is_finite()) {
        bail!(
            "--skip-secs {}: expected a number of seconds, 0 or more",
            args.skip_secs
        );
    }
    let scorer = Scorer::new(
        &load_agenda(&args.agenda)?,
        &load_personas(&args.templates)?,
    );
    let options = Options {
        skip_before_ms: (args.skip_secs * 1000.0) as u64,
    };
    let mut scored = Vec::new();
    for (i, dir) in args.sessions.iter().enumerate() {
        let session = load_session(dir)?;
        let label = args
            .labels
            .get(i)
            .cloned()
            .unwrap_or_else(|| folder_name(dir));
        let report = scorer.assess(&session, options);
        scored.push(Scored {
            label,
            session: dir.clone(),
            rates: Rates::of(&report),
            report,
        });
    }
    if args.explain {
        eprint!("{}", explanations(&scored));
    }
    if args.json {
        for s in &scored {
            println!("{}", serde_json::to_string(s)?);
        }
    } else {
        print!("{}", table(&scored, !args.no_header));
    }
    Ok(())
}

fn load_agenda(path: &Path) -> eyre::Result<Agenda> {
    let text = read(path)?;
    Agenda::from_yaml(&text).wrap_err_with(|| format!("{}", path.display()))
}

/// Every `DIR/*/persona.md`, in folder order.
fn load_personas(dir: &Path) -> eyre::Result<Vec<Persona>> {
    let entries = fs::read_dir(dir)
        .wrap_err_with(|| format!("reading the templates folder {}", dir.display()))?;
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path().join("persona.md")))
        .filter(|p| p.is_file())
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|path| Persona::parse(&read(path)?).wrap_err_with(|| format!("{}", path.display())))
        .collect()
}

/// `transcript.jsonl` (required) and `events.jsonl` (if there is one).
fn load_session(dir: &Path) -> eyre::Result<Session> {
    let transcript = dir.join("transcript.jsonl");
    let lines = parse_transcript(&read(&transcript)?)
        .wrap_err_with(|| format!("{}", transcript.display()))?;
    let events_path = dir.join("events.jsonl");
    let events = match events_path.is_file() {
        true => Some(
            parse_events(&read(&events_path)?)
                .wrap_err_with(|| format!("{}", events_path.display()))?,
        ),
        false => None,
    };
    Ok(Session { lines, events })
}

fn read(path: &Path) -> eyre::Result<String> {
    fs::read_to_string(path).map_err(|err| eyre!("reading {}: {err}", path.display()))
}

fn folder_name(dir: &Path) -> String {
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_owned());
    dir.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| dir.display().to_string())
}

impl Rates {
    fn of(report: &Report) -> Self {
        Self {
            echo: report.echo.rate(),
            on_topic: report.on_topic.rate(),
            human_answers_addressed: report.human_answers_addressed.rate(),
            distinct_2: report.distinct_2.rate(),
            in_language: report.in_language.and_then(|r| r.rate()),
        }
    }
}

const HEADER: &str = "| session | agent lines | human lines | echo % | on-topic % | recited \
                      | identity slips | human answers addressed | empty | markup \
                      | pleasantry pairs | distinct-2 | in language % |\n\
                      |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";

/// The Markdown table: a row per session, with the header if asked.
fn table(scored: &[Scored], header: bool) -> String {
    let mut out = if header {
        HEADER.to_owned()
    } else {
        String::new()
    };
    for s in scored {
        let r = &s.report;
        out += &format!(
            "| {} | {} | {} | {} | {} | {} | {} | {}/{} | {} | {} | {} | {} | {} |\n",
            s.label.replace('|', "/"),
            r.agent_lines,
            r.human_lines,
            percent(s.rates.echo),
            percent(s.rates.on_topic),
            r.recited,
            r.identity_slips,
            r.human_answers_addressed.count,
            r.human_answers_addressed.total,
            r.empty_turns(),
            r.markup,
            r.pleasantry_pairs,
            s.rates
                .distinct_2
                .map_or_else(|| "–".to_owned(), |d| format!("{d:.2}")),
            percent(s.rates.in_language),
        );
    }
    out
}

fn percent(rate: Option<f64>) -> String {
    rate.map_or_else(|| "–".to_owned(), |r| format!("{:.1}", r * 100.0))
}

/// Every failing line of every session, with its reasons, one line each.
fn explanations(scored: &[Scored]) -> String {
    let mut out = String::new();
    for s in scored {
        out += &format!("== {} ({})\n", s.label, s.session.display());
        for f in &s.report.findings {
            let reasons: Vec<String> = f.reasons.iter().map(ToString::to_string).collect();
            let text = f
                .text
                .as_deref()
                .map_or_else(|| "(no line)".to_owned(), excerpt);
            out += &format!(
                "[q{}] {}: {} — {}\n",
                f.question_id,
                f.speaker,
                text,
                reasons.join("; ")
            );
        }
    }
    out
}

/// The line on one terminal row: at most 100 characters, newlines as spaces.
fn excerpt(text: &str) -> String {
    const MAX: usize = 100;
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(MAX) {
        Some((cut, _)) => format!("\"{}…\"", &flat[..cut]),
        None => format!("\"{flat}\""),
    }
}
