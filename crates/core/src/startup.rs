//! The startup report: where a start spent its time, worked out from the builds it ran (when
//! each began, how long it took, which of them it waited on).

use std::fmt;
use std::time::Duration;

use serde::Serialize;

use crate::error::NodeKind;

/// Where a start (an app's `start()`, or [`Container::build_all`](crate::Container::build_all)
/// and [`build_keys`](crate::Container::build_keys)) spent its time: every build it ran,
/// when it began and how long it took, what it waited on, how many ran at once, and the
/// **critical path**: the chain of builds, each waiting on the one before, that ended last. No
/// amount of concurrency makes a start shorter than its critical path; shortening a build on it
/// shortens the start, shortening any other does not.
///
/// Its `Display` is what `explain` prints; it is also JSON (`serde`) and a section of the
/// explain page.
///
/// ```
/// use std::time::Duration;
/// use green_tea::{BoxError, Container, ProviderFn};
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)] async fn main() {
/// let slow = |seconds| move |_| async move {
///     tokio::time::sleep(Duration::from_secs(seconds)).await;
///     Ok::<_, BoxError>(seconds)
/// };
/// let container = Container::builder()
///     .provider(ProviderFn::new("pg", slow(1)))
///     .provider(ProviderFn::new("migrations", slow(2)).needs::<u64>("pg"))
///     .provider(ProviderFn::new("cache", slow(1)))
///     .build()
///     .unwrap();
/// container.build_all().await.unwrap();
/// let report = container.startup().unwrap();
/// assert_eq!(report.critical_path_names(), ["pg", "migrations"]);
/// assert_eq!(report.took(), Duration::from_secs(3));
/// assert_eq!(report.peak_concurrency, 2);
/// assert!(report.to_string().starts_with("critical path: 3.000 s of 3.000 s: `pg` → `migrations`"));
/// # container.close().await.unwrap(); }
/// ```
#[derive(Clone, Debug, Default, Serialize)]
#[non_exhaustive]
pub struct StartupReport {
    /// From the start's beginning to the end of its last build, in microseconds.
    pub took_micros: u64,
    /// The critical path, first build to last (positions in [`builds`](Self::builds)): each
    /// waited on the one before it, and the last ended last.
    pub critical_path: Vec<usize>,
    /// The critical path's builds' time, added up, in microseconds.
    pub critical_micros: u64,
    /// The most builds that ran at the same time.
    pub peak_concurrency: usize,
    /// The time of every build added up, in microseconds: over
    /// [`took_micros`](Self::took_micros), how much the start gained by building concurrently.
    pub building_micros: u64,
    /// Every build the start ran or waited for, in the order they began (ties in build
    /// order). A build it found done, built before it, is not here; one it joined in flight,
    /// begun by a request, is, [`joined`](StartupBuild::joined).
    pub builds: Vec<StartupBuild>,
}

/// One build of a start, in a [`StartupReport`].
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct StartupBuild {
    /// Its name, qualified by its module (`orders::payment`).
    pub provider: String,
    /// Provider, settings, decorator, collection, ...
    pub kind: NodeKind,
    /// The keys it provides.
    pub keys: Vec<String>,
    /// The path of its module, if it is in one.
    pub module: Option<String>,
    /// When it began, from the start's beginning, in microseconds.
    pub began_micros: u64,
    /// How long it took, in microseconds.
    pub took_micros: u64,
    /// The builds of the start it waited on (positions in [`StartupReport::builds`]), in the
    /// order they ended: the last is the one that held it up.
    pub waited_on: Vec<usize>,
    /// Whether it is on the critical path.
    pub critical: bool,
    /// Begun before the start needed it (by a request), and joined in flight: its
    /// [`began_micros`](Self::began_micros) is when the start began waiting for it, its
    /// [`took_micros`](Self::took_micros) how long it waited.
    pub joined: bool,
}

impl StartupBuild {
    /// A build of a start: `waited_on` are positions in the same list, in any order.
    pub(crate) fn new(
        provider: String,
        kind: NodeKind,
        keys: Vec<String>,
        module: Option<String>,
        (began, took): (Duration, Duration),
        waited_on: Vec<usize>,
        joined: bool,
    ) -> Self {
        StartupBuild {
            provider,
            kind,
            keys,
            module,
            began_micros: micros(began),
            took_micros: micros(took),
            waited_on,
            critical: false,
            joined,
        }
    }

    fn ended_micros(&self) -> u64 {
        self.began_micros.saturating_add(self.took_micros)
    }
}

impl StartupReport {
    /// The report of `builds` (each `waited_on` a position in `builds`, in build order): sorted
    /// by when each began, the critical path walked back from the build that ended last
    /// through, at each step, the build it waited on that ended last; among builds that ended
    /// at once, the first in that order, at every step.
    pub(crate) fn of(builds: Vec<StartupBuild>) -> Self {
        // In the order they began (ties: the order recorded), positions remapped.
        let mut order: Vec<usize> = (0..builds.len()).collect();
        order.sort_by_key(|&i| builds[i].began_micros);
        let mut position = vec![0; builds.len()];
        for (new, &old) in order.iter().enumerate() {
            position[old] = new;
        }
        let mut slots: Vec<Option<StartupBuild>> = builds.into_iter().map(Some).collect();
        let mut builds: Vec<StartupBuild> = order
            .iter()
            .map(|&old| slots[old].take().expect("each build is placed once"))
            .collect();
        let ends: Vec<u64> = builds.iter().map(StartupBuild::ended_micros).collect();
        for build in &mut builds {
            for waited in &mut build.waited_on {
                *waited = position[*waited];
            }
            build.waited_on.sort_by_key(|&w| (ends[w], w));
        }

        let mut critical_path = Vec::new();
        let last_to_end = |among: &mut dyn Iterator<Item = usize>| {
            among.max_by_key(|&i| (ends[i], std::cmp::Reverse(i)))
        };
        let mut at = last_to_end(&mut (0..builds.len()));
        while let Some(i) = at {
            critical_path.push(i);
            builds[i].critical = true;
            at = last_to_end(&mut builds[i].waited_on.iter().copied());
        }
        critical_path.reverse();

        // Ends before begins at the same instant: a build that begins as another ends did
        // not run beside it. A build too short for the clock lasts one microsecond here, so
        // that it counts.
        let mut events: Vec<(u64, i32)> = builds
            .iter()
            .flat_map(|b| {
                let end = b.ended_micros().max(b.began_micros + 1);
                [(b.began_micros, 1), (end, -1)]
            })
            .collect();
        events.sort_unstable();
        let mut running = 0_i32;
        let mut peak = 0_i32;
        for (_, change) in events {
            running += change;
            peak = peak.max(running);
        }

        StartupReport {
            took_micros: ends.iter().copied().max().unwrap_or(0),
            critical_micros: critical_path.iter().map(|&i| builds[i].took_micros).sum(),
            critical_path,
            peak_concurrency: usize::try_from(peak).unwrap_or(0),
            building_micros: builds.iter().map(|b| b.took_micros).sum(),
            builds,
        }
    }

    /// From the start's beginning to the end of its last build.
    pub fn took(&self) -> Duration {
        Duration::from_micros(self.took_micros)
    }

    /// The critical path's builds' time, added up.
    pub fn critical_time(&self) -> Duration {
        Duration::from_micros(self.critical_micros)
    }

    /// The names of the critical path's builds, first to last.
    pub fn critical_path_names(&self) -> Vec<&str> {
        (self.critical_path.iter())
            .map(|&i| self.builds[i].provider.as_str())
            .collect()
    }

    /// The build of `provider` (its qualified name), if the start ran it.
    pub fn build(&self, provider: &str) -> Option<&StartupBuild> {
        self.builds.iter().find(|b| b.provider == provider)
    }

    /// As JSON.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("the startup report is plain data")
    }
}

impl fmt::Display for StartupReport {
    /// ```text
    /// critical path: 3.000 s of 3.000 s: `pg` → `migrations`
    /// 3 builds, at most 2 at once (4.000 s of building in 3.000 s)
    ///     began     took
    ///   * 0.000 s  1.000 s  provider `pg`
    ///     0.000 s  1.000 s  provider `cache`
    ///   * 1.000 s  2.000 s  provider `migrations`, after `pg`
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.builds.is_empty() {
            return f.write_str("the start built nothing");
        }
        let path: Vec<String> = (self.critical_path_names().iter())
            .map(|name| format!("`{name}`"))
            .collect();
        write!(
            f,
            "critical path: {} of {}: {}",
            seconds(self.critical_micros),
            seconds(self.took_micros),
            path.join(" → ")
        )?;
        let n = self.builds.len();
        write!(
            f,
            "\n{n} build{}, at most {} at once ({} of building in {})",
            if n == 1 { "" } else { "s" },
            self.peak_concurrency,
            seconds(self.building_micros),
            seconds(self.took_micros)
        )?;
        f.write_str("\n    began     took")?;
        for build in &self.builds {
            write!(
                f,
                "\n  {} {}  {}  {} `{}`",
                if build.critical { '*' } else { ' ' },
                seconds(build.began_micros),
                seconds(build.took_micros),
                build.kind,
                build.provider
            )?;
            if build.joined {
                f.write_str(" (begun by a request; waited for)")?;
            }
            if !build.waited_on.is_empty() {
                let waited: Vec<String> = (build.waited_on.iter())
                    .map(|&w| format!("`{}`", self.builds[w].provider))
                    .collect();
                write!(f, ", after {}", waited.join(", "))?;
            }
        }
        Ok(())
    }
}

fn micros(duration: Duration) -> u64 {
    u64::try_from(duration.as_micros()).unwrap_or(u64::MAX)
}

/// `1.250 s`: seconds to the millisecond, so that the columns line up.
fn seconds(micros: u64) -> String {
    format!("{}.{:03} s", micros / 1_000_000, (micros / 1_000) % 1_000)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(name: &str, began: u64, took: u64, waited_on: &[usize]) -> StartupBuild {
        StartupBuild::new(
            name.to_owned(),
            NodeKind::Provider,
            vec![name.to_owned()],
            None,
            (Duration::from_millis(began), Duration::from_millis(took)),
            waited_on.to_vec(),
            false,
        )
    }

    /// `billing` waits on `migrations` (ends at 3 s) and `config` (ends at 0.1 s): the path
    /// goes through `migrations`, the one that held it up; `cache` runs beside them.
    #[test]
    fn the_critical_path_follows_what_ended_last() {
        let report = StartupReport::of(vec![
            build("billing", 3_000, 500, &[2, 3]),
            build("pg", 0, 1_000, &[]),
            build("migrations", 1_000, 2_000, &[1]),
            build("config", 0, 100, &[]),
            build("cache", 0, 2_500, &[]),
        ]);
        assert_eq!(
            report.critical_path_names(),
            ["pg", "migrations", "billing"]
        );
        assert_eq!(report.took(), Duration::from_millis(3_500));
        assert_eq!(report.critical_time(), Duration::from_millis(3_500));
        assert_eq!(report.peak_concurrency, 3);
        let billing = report.build("billing").unwrap();
        let waited: Vec<&str> = (billing.waited_on.iter())
            .map(|&w| report.builds[w].provider.as_str())
            .collect();
        assert_eq!(waited, ["config", "migrations"]);
        assert!(!report.build("cache").unwrap().critical);
        let text = report.to_string();
        assert!(
            text.starts_with(
                "critical path: 3.500 s of 3.500 s: `pg` → `migrations` → `billing`\n\
                 5 builds, at most 3 at once (6.100 s of building in 3.500 s)"
            ),
            "{text}"
        );
        assert!(
            text.contains("  * 3.000 s  0.500 s  provider `billing`, after `config`, `migrations`"),
            "{text}"
        );
        assert!(
            text.contains("    0.000 s  2.500 s  provider `cache`"),
            "{text}"
        );
    }

    #[test]
    fn builds_that_touch_did_not_run_at_once() {
        let report = StartupReport::of(vec![
            build("a", 0, 1_000, &[]),
            build("b", 1_000, 1_000, &[0]),
        ]);
        assert_eq!(report.peak_concurrency, 1);
        assert_eq!(report.critical_path_names(), ["a", "b"]);
    }

    /// Ties, as the paused clock makes them: the path ends at the first of the builds that
    /// ended last, and steps back to the first of the builds that ended last among what
    /// each waited on; builds too short for the clock still count as running.
    #[test]
    fn ties_go_to_the_first_in_build_order_and_instant_builds_count() {
        let report = StartupReport::of(vec![
            build("a", 0, 1_000, &[]),
            build("b", 0, 1_000, &[]),
            build("c", 1_000, 500, &[0, 1]),
            build("d", 1_000, 500, &[1, 0]),
        ]);
        assert_eq!(report.critical_path_names(), ["a", "c"]);
        let instant = StartupReport::of(vec![build("x", 0, 0, &[]), build("y", 0, 0, &[])]);
        assert_eq!(instant.peak_concurrency, 2);
        assert_eq!(instant.critical_path_names(), ["x"]);
    }

    #[test]
    fn an_empty_start_says_so() {
        let report = StartupReport::of(Vec::new());
        assert_eq!(report.to_string(), "the start built nothing");
        assert!(report.critical_path.is_empty());
        assert_eq!(report.peak_concurrency, 0);
    }
}
