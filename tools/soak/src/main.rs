//! `soak script MINUTES EVERY_SECS SEED`: the soak's human script (YAML, to stdout).
//! `soak sample OUT.jsonl REPO MINUTES`: every minute, the resident memory, threads and
//! open files of every process started from REPO's `target/release/` (by dataflow node id)
//! and of the dora CLI running the dataflow (Linux: it reads `/proc`).
//! `soak check SESSION SAMPLES.jsonl WARMUP_MINUTES`: the report; exit 1 when a node
//! grew, a stall happened or a session file is incomplete.
//!
//! Run by `scripts/soak.sh`; a bench, not a test.

use std::path::Path;

use eyre::{Context, bail};
use soak::{MAX_STALL_MS, Sample, human_script, nodes, stalls};

fn main() -> eyre::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize| -> eyre::Result<&str> {
        args.get(i).map(String::as_str).ok_or_else(|| {
            eyre::eyre!("missing argument {i}; see the top of tools/soak/src/main.rs")
        })
    };
    let number = |i: usize| -> eyre::Result<u64> {
        arg(i)?
            .parse()
            .wrap_err_with(|| format!("argument {i} is not a number"))
    };
    match arg(0)? {
        "script" => print!("{}", human_script(number(1)?, number(2)?, number(3)?)),
        "sample" => sample(Path::new(arg(1)?), Path::new(arg(2)?), number(3)?)?,
        "check" => {
            if !check(Path::new(arg(1)?), Path::new(arg(2)?), number(3)?)? {
                std::process::exit(1);
            }
        }
        other => bail!("unknown command {other:?}: script | sample | check"),
    }
    Ok(())
}

/// `soak sample`: what it samples (resident memory, threads, file handles, each
/// process's executable, command line and environment) is read from `/proc`, so it runs
/// on Linux only; `script` and `check` run anywhere.
#[cfg(target_os = "linux")]
mod procfs {
    use std::path::Path;
    use std::time::{Duration, Instant};

    use eyre::Context;
    use soak::Sample;

    pub fn sample(out: &Path, repo: &Path, minutes: u64) -> eyre::Result<()> {
        use std::io::Write;
        let release = repo.canonicalize()?.join("target/release");
        let mut file =
            std::fs::File::create(out).wrap_err_with(|| format!("creating {}", out.display()))?;
        let begin = Instant::now();
        for minute in 0..=minutes {
            let wake = begin + Duration::from_secs(minute * 60);
            std::thread::sleep(wake.saturating_duration_since(Instant::now()));
            for sample in processes(&release, minute) {
                writeln!(file, "{}", serde_json::to_string(&sample)?)?;
            }
            file.flush()?;
        }
        Ok(())
    }

    /// Every process of the conversation: node binaries by their dataflow node id, the
    /// dora CLI (daemon and coordinator of `dora run`) as `dora`.
    fn processes(release: &Path, minute: u64) -> Vec<Sample> {
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return Vec::new();
        };
        let mut found = Vec::new();
        for entry in entries.flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|s| s.parse::<u32>().ok())
            else {
                continue;
            };
            let dir = entry.path();
            let Ok(exe) = std::fs::read_link(dir.join("exe")) else {
                continue;
            };
            let node = if pid == std::process::id() {
                continue;
            } else if exe.starts_with(release) {
                node_id(&dir).unwrap_or_else(|| file_name(&exe))
            } else if let Some(command) = dora_command(&dir) {
                format!("dora {command}")
            } else {
                continue;
            };
            let status = std::fs::read_to_string(dir.join("status")).unwrap_or_default();
            let field = |name: &str| -> u64 {
                status
                    .lines()
                    .find_map(|l| l.strip_prefix(name))
                    .and_then(|v| v.split_whitespace().next())
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(0)
            };
            let fds = std::fs::read_dir(dir.join("fd"))
                .map(|d| d.count() as u64)
                .unwrap_or(0);
            found.push(Sample {
                minute,
                node,
                pid,
                rss_kib: field("VmRSS:"),
                pss_kib: pss_kib(&dir),
                cpu_ms: cpu_ms(&dir),
                threads: field("Threads:"),
                fds,
            });
        }
        found
    }

    /// The process's proportional set size (`/proc/PID/smaps_rollup`), 0 when unreadable.
    fn pss_kib(proc_dir: &Path) -> u64 {
        std::fs::read_to_string(proc_dir.join("smaps_rollup"))
            .unwrap_or_default()
            .lines()
            .find_map(|l| l.strip_prefix("Pss:"))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    }

    /// User and system CPU time of the process (`/proc/PID/stat`, fields 14 and 15, in
    /// clock ticks of 10 ms: Linux's USER_HZ is 100 on every architecture it exports).
    fn cpu_ms(proc_dir: &Path) -> u64 {
        let stat = std::fs::read_to_string(proc_dir.join("stat")).unwrap_or_default();
        // The command name (field 2) may hold spaces: count fields after its `)`.
        let Some((_, rest)) = stat.rsplit_once(')') else {
            return 0;
        };
        let fields: Vec<u64> = rest
            .split_whitespace()
            .skip(11)
            .take(2)
            .filter_map(|v| v.parse().ok())
            .collect();
        fields.iter().sum::<u64>() * 10
    }

    fn file_name(path: &Path) -> String {
        path.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    /// `run`, `daemon` or `coordinator` for a dora CLI process (a Python entry point).
    fn dora_command(proc_dir: &Path) -> Option<String> {
        let cmdline = std::fs::read(proc_dir.join("cmdline")).ok()?;
        let args: Vec<&[u8]> = cmdline.split(|b| *b == 0).collect();
        let position = args
            .iter()
            .position(|a| a.ends_with(b"/dora") || *a == b"dora")?;
        let command = args.get(position + 1)?;
        Some(String::from_utf8_lossy(command).into_owned())
    }

    /// The node id dora gave the process (its `DORA_NODE_CONFIG`).
    fn node_id(proc_dir: &Path) -> Option<String> {
        let environ = std::fs::read(proc_dir.join("environ")).ok()?;
        let config = environ
            .split(|b| *b == 0)
            .find_map(|kv| kv.strip_prefix(b"DORA_NODE_CONFIG="))?;
        let value: serde_yaml::Value = serde_yaml::from_slice(config).ok()?;
        value.get("node_id")?.as_str().map(str::to_owned)
    }
}

#[cfg(target_os = "linux")]
use procfs::sample;

#[cfg(not(target_os = "linux"))]
fn sample(_out: &Path, _repo: &Path, _minutes: u64) -> eyre::Result<()> {
    bail!("`soak sample` reads /proc: Linux only")
}

fn jsonl(path: &Path) -> (Vec<serde_json::Value>, usize) {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut bad = 0;
    let lines = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .filter_map(|l| serde_json::from_str(l).map_err(|_| bad += 1).ok())
        .collect();
    (lines, bad)
}

/// Milliseconds of audio in the WAV the player wrote (the samples its header counts).
fn wav_ms(path: &Path) -> eyre::Result<u64> {
    let wav = hound::WavReader::open(path)
        .wrap_err_with(|| format!("{} is not a readable WAV file", path.display()))?;
    let rate = u64::from(wav.spec().sample_rate.max(1));
    Ok(u64::from(wav.duration()) * 1000 / rate)
}

fn check(session: &Path, samples_path: &Path, warmup: u64) -> eyre::Result<bool> {
    let mut ok = true;
    let (samples, _) = jsonl(samples_path);
    let samples: Vec<Sample> = samples
        .into_iter()
        .filter_map(|v| serde_json::from_value(v).ok())
        .collect();
    let last_minute = samples.iter().map(|s| s.minute).max().unwrap_or(0);
    println!(
        "samples: {} over {} minutes; figures from minute {warmup} on",
        samples.len(),
        last_minute
    );
    println!(
        "{:<22} {:>7} {:>10} {:>10} {:>10} {:>7} {:>10} {:>6} {:>9} {:>9} {:>5}",
        "node",
        "samples",
        "rss med MB",
        "min MB",
        "max MB",
        "spread",
        "pss max MB",
        "cpu",
        "threads",
        "fds",
        "pids"
    );
    for node in nodes(&samples, warmup) {
        let flat = node.rss_flat() && node.handles_flat();
        ok &= flat;
        let mb = |kib: u64| kib as f64 / 1024.0;
        println!(
            "{:<22} {:>7} {:>10.1} {:>10.1} {:>10.1} {:>6.1}% {:>10.1} {:>5.0}% {:>4}–{:<4} {:>4}–{:<4} {:>5}{}",
            node.node,
            node.samples,
            mb(node.rss_median_kib),
            mb(node.rss_min_kib),
            mb(node.rss_max_kib),
            node.rss_spread() * 100.0,
            mb(node.pss_max_kib),
            node.cpu_share.unwrap_or(0.0) * 100.0,
            node.threads.0,
            node.threads.1,
            node.fds.0,
            node.fds.1,
            node.pids,
            if flat { "" } else { "  NOT FLAT" }
        );
    }

    let report = nodes(&samples, warmup);
    println!(
        "whole dataflow: pss max {:.1} MB (the sum of every node's), cpu {:.0}% of one core",
        report.iter().map(|n| n.pss_max_kib).sum::<u64>() as f64 / 1024.0,
        report.iter().filter_map(|n| n.cpu_share).sum::<f64>() * 100.0
    );

    // Progress: every second a voice sounds (the player's clock, positions in
    // conversation.wav), each human line as it arrived and each control event (the
    // recorder's clock; both start with the session).
    let (timeline, bad_timeline) = jsonl(&session.join("timeline.jsonl"));
    let (transcript, bad_transcript) = jsonl(&session.join("transcript.jsonl"));
    let (events, bad_events) = jsonl(&session.join("events.jsonl"));
    let ms = |v: &serde_json::Value, key: &str| v.get(key).and_then(serde_json::Value::as_u64);
    let mut progress = Vec::new();
    for line in &timeline {
        if let (Some(start), Some(end)) = (ms(line, "start_ms"), ms(line, "end_ms")) {
            progress.extend((start..end).step_by(1000));
            progress.push(end);
        }
    }
    progress.extend(
        transcript
            .iter()
            .filter(|l| l["human"] == true)
            .filter_map(|l| ms(l, "start_ms")),
    );
    progress.extend(events.iter().filter_map(|e| ms(e, "t_ms")));
    let heard_ms = wav_ms(&session.join("conversation.wav"))?;
    // The stop cuts the last utterance short, and what is cut at the stop is never
    // written: the quiet after the last progress is shown, not counted.
    let last_progress = progress.iter().copied().max().unwrap_or(0);
    let quiet = stalls(progress, last_progress);
    println!(
        "conversation: {:.1} min heard, {} transcript lines ({} human), {} utterances played, {} events",
        heard_ms as f64 / 60_000.0,
        transcript.len(),
        transcript.iter().filter(|l| l["human"] == true).count(),
        timeline.iter().filter(|l| l["human"] != true).count(),
        events.len()
    );
    println!(
        "stalls (no progress for more than {} s): {}; after the last progress, {:.1} s to the end",
        MAX_STALL_MS / 1000,
        quiet.len(),
        heard_ms.saturating_sub(last_progress) as f64 / 1000.0
    );
    for (from, to) in quiet.iter().take(20) {
        println!(
            "  {:.1} s → {:.1} s ({:.1} s)",
            *from as f64 / 1000.0,
            *to as f64 / 1000.0,
            (to - from) as f64 / 1000.0
        );
    }
    ok &= quiet.is_empty();

    let bad = bad_timeline + bad_transcript + bad_events;
    let manifest = session.join("context/MANIFEST.sha256");
    println!(
        "session files: {bad} unreadable lines; context manifest {}",
        if manifest.exists() {
            "present"
        } else {
            "MISSING"
        }
    );
    ok &= bad == 0 && manifest.exists();
    println!("{}", if ok { "soak: PASS" } else { "soak: FAIL" });
    Ok(ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_recording_lasts_what_its_header_counts() {
        let path = std::env::temp_dir().join(format!("soak-wav-{}.wav", std::process::id()));
        let spec = hound::WavSpec {
            channels: 1,
            sample_rate: 22_050,
            bits_per_sample: 16,
            sample_format: hound::SampleFormat::Int,
        };
        let mut wav = hound::WavWriter::create(&path, spec).unwrap();
        for _ in 0..22_050 * 3 / 2 {
            wav.write_sample(0i16).unwrap();
        }
        wav.finalize().unwrap();
        assert_eq!(wav_ms(&path).unwrap(), 1_500);
        std::fs::write(&path, b"RIFF, but not a WAV").unwrap();
        assert!(wav_ms(&path).is_err());
        let _ = std::fs::remove_file(&path);
    }
}
