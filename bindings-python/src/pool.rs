//! The thread pool that `parse_many` and `parse_arrow` parse on.
//!
//! One rayon pool is kept per process and rebuilt when the thread count asked for changes. A
//! child made by `fork()` inherits the parent's pool but none of its threads, so the pool
//! remembers the process id it was built in and a forked child builds its own (Spark's Python
//! workers and `multiprocessing` fork).

use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::{Arc, Mutex};

use pyo3::exceptions::PyValueError;
use pyo3::PyResult;
use rayon::prelude::*;
use rayon::{ThreadPool, ThreadPoolBuilder};

/// A built pool: the process it was built in, its thread count, the pool.
type Built = (u32, usize, Arc<ThreadPool>);

static POOL: Mutex<Option<Built>> = Mutex::new(None);

/// Rows handed to one worker at a time: enough that a task outweighs its scheduling, few enough
/// that both cores stay busy to the end of a batch.
const MIN_ROWS_PER_TASK: usize = 64;

/// How a batch is run: on the caller's thread, or on a pool of `n` threads.
pub(crate) enum Workers {
    Inline,
    Pool(Arc<ThreadPool>),
}

impl Workers {
    /// The `threads` argument: `None` is every available core, `0` is a `ValueError`.
    pub(crate) fn new(threads: Option<usize>) -> PyResult<Workers> {
        let n = match threads {
            None => std::thread::available_parallelism().map_or(1, usize::from),
            Some(0) => return Err(PyValueError::new_err("threads must be at least 1")),
            Some(n) => n,
        };
        if n == 1 {
            return Ok(Workers::Inline);
        }
        pool(n).map(Workers::Pool)
    }

    /// Starts mapping `f` over `items` on the pool and returns at once; the receiver gets the
    /// items back with their results, in input order. (Inline: maps before returning.)
    pub(crate) fn spawn_map<T, R, F>(&self, items: Vec<T>, f: F) -> Receiver<(Vec<T>, Vec<R>)>
    where
        T: Sync + Send + 'static,
        R: Send + 'static,
        F: Fn(&T) -> R + Sync + Send + 'static,
    {
        let (tx, rx) = sync_channel(1);
        match self {
            Workers::Inline => {
                let results = self.map(&items, f);
                let _ = tx.send((items, results));
            }
            Workers::Pool(pool) => {
                let workers = Workers::Pool(Arc::clone(pool));
                pool.spawn(move || {
                    let results = workers.map(&items, f);
                    let _ = tx.send((items, results));
                });
            }
        }
        rx
    }

    /// `f` applied to every item, `batch` items at a time, each batch's results handed to
    /// `consume` in input order. On a pool, one thread consumes a batch while the others map the
    /// next; the first error of `consume` stops the run.
    pub(crate) fn pipeline<T: Sync, R: Send, E: Send>(
        &self,
        items: &[T],
        batch: usize,
        f: impl Fn(&T) -> R + Sync + Send,
        mut consume: impl FnMut(Vec<R>) -> Result<(), E> + Send,
    ) -> Result<(), E> {
        match self {
            Workers::Inline => items.chunks(batch).try_for_each(|chunk| consume(self.map(chunk, &f))),
            Workers::Pool(pool) => pool.install(|| {
                let mut done: Option<Vec<R>> = None;
                for chunk in items.chunks(batch) {
                    let (results, consumed) =
                        rayon::join(|| self.map(chunk, &f), || done.take().map_or(Ok(()), &mut consume));
                    consumed?;
                    done = Some(results);
                }
                done.map_or(Ok(()), consume)
            }),
        }
    }

    /// `f` applied to every item, results in input order.
    pub(crate) fn map<T: Sync, R: Send>(&self, items: &[T], f: impl Fn(&T) -> R + Sync + Send) -> Vec<R> {
        match self {
            Workers::Pool(pool) if items.len() > MIN_ROWS_PER_TASK => {
                pool.install(|| items.par_iter().with_min_len(MIN_ROWS_PER_TASK).map(f).collect())
            }
            _ => items.iter().map(f).collect(),
        }
    }
}

fn pool(threads: usize) -> PyResult<Arc<ThreadPool>> {
    let pid = std::process::id();
    let mut slot = POOL.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((built_in, n, pool)) = slot.as_ref() {
        if *built_in == pid && *n == threads {
            return Ok(Arc::clone(pool));
        }
    }
    if let Some((built_in, _, stale)) = slot.take() {
        if built_in != pid {
            // Built before a fork: its threads live in the parent only. Dropping it would signal
            // threads that do not exist here, so it is let go without running its destructor.
            std::mem::forget(stale);
        }
    }
    let pool = ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("beacon-{i}"))
        .build()
        .map_err(|e| PyValueError::new_err(format!("cannot start {threads} threads: {e}")))?;
    let pool = Arc::new(pool);
    *slot = Some((pid, threads, Arc::clone(&pool)));
    Ok(pool)
}
