//! `GET /v1/events`: one Server-Sent Event per committed generation, so an agent can wait
//! for its own edit to be indexed instead of polling.
//!
//! Subscribers read from a broadcast channel: a slow or gone client never holds up the
//! indexer (a lagging one gets a `lagged` event with the number of events it missed).

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, get};
use schemars::JsonSchema;
use serde::Serialize;
use tokio::sync::broadcast::error::RecvError;

use super::Service;

/// A committed update of the index.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct GenerationEvent {
    pub generation: i64,
    /// Files parsed (new or changed) in this update.
    pub files_parsed: u64,
    pub files_removed: u64,
    /// Files whose references were resolved again.
    pub files_re_resolved: u64,
    /// From the first change seen to the commit, in milliseconds.
    pub latency_ms: f64,
    /// True when the watcher rescanned everything (the first index, or lost events).
    pub rescan: bool,
    /// Seconds since the Unix epoch of the commit.
    pub committed_at: u64,
}

impl GenerationEvent {
    pub fn from_summary(s: &ckg_core::index::Summary, latency: Duration, rescan: bool) -> GenerationEvent {
        GenerationEvent {
            generation: s.generation,
            files_parsed: s.parsed,
            files_removed: s.removed,
            files_re_resolved: s.re_resolved,
            latency_ms: (latency.as_secs_f64() * 1e4).round() / 10.0,
            rescan,
            committed_at: std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0),
        }
    }
}

/// The committed generation of an index this service has not updated yet (one that existed
/// when it started): what the first event tells a new subscriber. `None` without an index,
/// or when it cannot be read in time.
async fn current(s: &Arc<Service>) -> Option<GenerationEvent> {
    if !s.config.db.exists() {
        return None;
    }
    let service = Arc::clone(s);
    let task = tokio::task::spawn_blocking(move || -> Option<GenerationEvent> {
        let (ix, file) = service.checkout().ok()?;
        let committed_at = ix.meta("updated_at").and_then(|v| v.parse().ok()).unwrap_or(0);
        let generation = ix.generation;
        service.checkin((ix, file));
        Some(GenerationEvent {
            generation,
            files_parsed: 0,
            files_removed: 0,
            files_re_resolved: 0,
            latency_ms: 0.0,
            rescan: false,
            committed_at,
        })
    });
    tokio::time::timeout(s.config.timeout, task).await.ok()?.ok()?
}

fn event(name: &str, e: &GenerationEvent) -> Event {
    Event::default().event(name).id(e.generation.to_string()).data(serde_json::to_string(e).unwrap_or_default())
}

async fn stream(State(s): State<Arc<Service>>) -> Response {
    let rx = s.events.subscribe();
    let closing = s.closing.subscribe();
    let last = s.live().last.clone();
    let hello = match last {
        Some(e) => Some(e),
        None => current(&s).await,
    };
    let first: Option<Result<Event, Infallible>> = Some(Ok(match &hello {
        Some(e) => event("hello", e),
        None => Event::default().event("hello").data("{}"),
    }));
    let state = (first, rx, closing);
    let events = futures_util::stream::unfold(state, |(first, mut rx, mut closing)| async move {
        if let Some(f) = first {
            return Some((f, (None, rx, closing)));
        }
        if *closing.borrow() {
            return None;
        }
        loop {
            tokio::select! {
                r = rx.recv() => match r {
                    Ok(e) => return Some((Ok(event("generation", &e)), (None, rx, closing))),
                    Err(RecvError::Lagged(n)) => {
                        return Some((Ok(Event::default().event("lagged").data(format!("{{\"missed\":{n}}}"))), (None, rx, closing)));
                    }
                    Err(RecvError::Closed) => return None,
                },
                changed = closing.changed() => {
                    if changed.is_err() || *closing.borrow() {
                        return None;
                    }
                }
            }
        }
    });
    Sse::new(events).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))).into_response()
}

pub(super) fn route() -> MethodRouter<Arc<Service>> {
    get(stream)
}
