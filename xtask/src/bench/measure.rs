//! What a run measures, and how runs of one side become the figure and spread of a row.

use std::time::Instant;

use super::process;

/// One measured run of one side.
#[derive(Debug, Clone, Default)]
pub(super) struct Run {
    /// Requests (or calls, or events) per second over the measured window.
    pub(super) throughput: f64,
    pub(super) p50_us: u32,
    pub(super) p99_us: u32,
    /// CPU time of the measured process per request, in microseconds.
    pub(super) cpu_us: Option<f64>,
    /// The measured process's peak RSS, in KiB.
    pub(super) peak_rss_kib: Option<u64>,
}

/// The runs of one side of a row: their medians, and how far apart they were.
#[derive(Debug, Clone, Default)]
pub(super) struct Side {
    /// The medians of the runs (the peak RSS is the maximum).
    pub(super) median: Run,
    /// The slowest and fastest run's throughput.
    pub(super) range: (f64, f64),
    /// How many runs there were.
    pub(super) runs: usize,
}

impl Side {
    /// The medians of `runs`.
    pub(super) fn of(runs: &[Run]) -> Side {
        let mid = |mut values: Vec<f64>| {
            values.sort_by(f64::total_cmp);
            let half = values.len() / 2;
            match values.len() {
                0 => 0.0,
                n if n % 2 == 1 => values[half],
                _ => (values[half - 1] + values[half]) / 2.0,
            }
        };
        let cpu: Vec<f64> = runs.iter().filter_map(|r| r.cpu_us).collect();
        let throughput = runs.iter().map(|r| r.throughput);
        let range = (
            throughput.clone().fold(f64::INFINITY, f64::min),
            throughput.fold(0.0, f64::max),
        );
        Side {
            median: Run {
                throughput: mid(runs.iter().map(|r| r.throughput).collect()),
                p50_us: mid(runs.iter().map(|r| f64::from(r.p50_us)).collect()) as u32,
                p99_us: mid(runs.iter().map(|r| f64::from(r.p99_us)).collect()) as u32,
                cpu_us: (!cpu.is_empty()).then(|| mid(cpu)),
                peak_rss_kib: runs.iter().filter_map(|r| r.peak_rss_kib).max(),
            },
            range: if runs.is_empty() { (0.0, 0.0) } else { range },
            runs: runs.len(),
        }
    }

    /// The side of runs that measured only these throughputs (the unit tests' rows).
    #[cfg(test)]
    pub(super) fn of_throughputs(throughputs: &[f64]) -> Side {
        let runs: Vec<Run> = throughputs
            .iter()
            .map(|&throughput| Run {
                throughput,
                ..Run::default()
            })
            .collect();
        Side::of(&runs)
    }

    /// The spread of the runs: (fastest − slowest) ÷ median throughput.
    pub(super) fn spread(&self) -> f64 {
        let median = self.median.throughput;
        if median > 0.0 {
            (self.range.1 - self.range.0) / median
        } else {
            0.0
        }
    }
}

/// Sorts `latencies` and summarizes them with the measured process's CPU ticks over the window.
pub(super) fn summarize(mut latencies: Vec<u32>, seconds: f64, cpu: Option<(f64, u64)>) -> Run {
    latencies.sort_unstable();
    let at = |q: f64| {
        let last = latencies.len().saturating_sub(1);
        latencies
            .get((last as f64 * q) as usize)
            .copied()
            .unwrap_or(0)
    };
    let requests = latencies.len() as f64;
    Run {
        throughput: requests / seconds,
        p50_us: at(0.50),
        p99_us: at(0.99),
        cpu_us: cpu
            .map(|(ticks_per_s, ticks)| ticks as f64 / ticks_per_s * 1e6 / requests.max(1.0)),
        peak_rss_kib: None,
    }
}

/// Reads the process's CPU ticks at `warm` and at `stop`; returns the ticks in between and the
/// peak RSS (KiB) at `stop`, while the process surely runs.
pub(super) async fn cpu_window(
    pid: u32,
    warm: Instant,
    stop: Instant,
) -> Result<(u64, u64), String> {
    tokio::time::sleep_until(warm.into()).await;
    let before = process::cpu_ticks(pid)?;
    tokio::time::sleep_until(stop.into()).await;
    let ticks = process::cpu_ticks(pid)?.saturating_sub(before);
    Ok((ticks, process::status_kib(pid, "VmHWM")?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_side_is_the_median_with_the_spread_of_its_runs() {
        let side = Side::of_throughputs(&[90.0, 110.0, 100.0]);
        assert_eq!(side.median.throughput, 100.0);
        assert_eq!(Side::of_throughputs(&[90.0, 100.0]).median.throughput, 95.0);
        assert!((side.spread() - 0.2).abs() < 1e-9);
        assert_eq!(Side::of(&[]).spread(), 0.0);
    }
}
