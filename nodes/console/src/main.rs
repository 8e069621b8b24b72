//! `console`: a live page in the browser. Dora inputs → [`console_core`] → WebSocket
//! broadcast; page messages → [`console_core`] → the `control`, `human_text` and `audio`
//! outputs. The HTTP/WebSocket server (axum) runs on its own thread; this loop never
//! waits for a page: each page has a bounded queue, and a frame that does not fit is
//! dropped and counted.
//!
//! Env: `CONSOLE_ADDR` (127.0.0.1), `CONSOLE_PORT` (8777), `CONSOLE_TOKEN` (required
//! for a non-loopback address), `CONSOLE_QUEUE` (frames per page, 512), `HUMAN_SPEAKER`
//! (human). See nodes/console/README.md.

mod codec;
mod listen;
mod settings;

use std::time::{Duration, Instant};

use conductor::Core;
use console_core::{Console, ConsoleInput, PageOutput};
use console_node::{PageEvent, Pages};
use crossbeam_channel::select;
use dora_node_api::{DoraNode, Event as DoraEvent};
use eyre::Context;

fn main() -> eyre::Result<()> {
    node_kit::init_tracing();
    let settings = settings::Settings::from_env()?;
    let listener = listen::bind(&settings)?;
    let (mut node, events) = DoraNode::init_from_env().context("failed to start the dora node")?;
    let dora_events = node_kit::forward_events(events);
    let (page_tx, page_rx) = crossbeam_channel::unbounded::<PageEvent>();
    // Held for the whole run, so that without a server the page channel stays quiet.
    let _page_tx = page_tx.clone();
    if let Some(listener) = listener {
        listen::serve(listener, &settings, page_tx)?;
    }

    let start = Instant::now();
    let now = || start.elapsed().as_millis() as u64;
    let mut console = Console::new(settings.config);
    let mut pages = Pages::default();
    let tick = crossbeam_channel::tick(Duration::from_secs(1));
    loop {
        let input = select! {
            recv(dora_events) -> event => match event {
                Ok(DoraEvent::Input { id, metadata, data }) => {
                    codec::to_input(id.as_str(), &metadata.parameters, &data)
                }
                Ok(DoraEvent::Stop(_)) | Err(_) => break,
                Ok(_) => continue,
            },
            recv(page_rx) -> event => match event {
                Ok(PageEvent::Connected { id, tx }) => {
                    pages.insert(id, tx);
                    tracing::info!(page = id, pages = pages.len(), "page connected");
                    ConsoleInput::Connected(id)
                }
                Ok(PageEvent::Text { id, text }) => ConsoleInput::PageText { client: id, text },
                Ok(PageEvent::Binary { id, bytes }) => ConsoleInput::PageAudio { client: id, frame: bytes },
                Ok(PageEvent::Closed { id }) => {
                    pages.remove(id);
                    tracing::info!(page = id, pages = pages.len(), "page closed");
                    ConsoleInput::Disconnected(id)
                }
                Err(_) => break,
            },
            recv(tick) -> _ => ConsoleInput::Transport(pages.transport()),
        };
        for out in console.handle(input, now()) {
            match out {
                PageOutput::Dora(out) => codec::send(&mut node, out),
                PageOutput::Warning(warning) => tracing::warn!("{warning}"),
                page_out => pages.deliver(page_out),
            }
        }
    }
    let transport = pages.transport();
    tracing::info!(
        sent = transport.frames_sent,
        dropped = transport.frames_dropped,
        "console stopped"
    );
    Ok(())
}
