//! The progress bar `seed` draws on stderr while it loads a large data set, when stderr is a
//! terminal (a redirected stderr gets only the final line).

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A bar that follows a load's stages (see [`store::Progress`]).
pub struct SeedProgress {
    bar: ProgressBar,
    stage: &'static str,
}

impl SeedProgress {
    pub fn new() -> SeedProgress {
        let target = if std::io::stderr().is_terminal() {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        };
        SeedProgress {
            bar: ProgressBar::with_draw_target(None, target),
            stage: "",
        }
    }

    /// `done` of `total` rows of `stage`; a `total` of 0 is a stage without a count.
    pub fn update(&mut self, stage: &'static str, done: u64, total: u64) {
        if stage != self.stage {
            self.stage = stage;
            self.bar.reset();
            self.bar.set_message(stage);
            if total == 0 {
                self.bar.set_style(spinner_style());
                self.bar.enable_steady_tick(Duration::from_millis(120));
            } else {
                self.bar.disable_steady_tick();
                self.bar.set_style(bar_style());
                self.bar.set_length(total);
            }
        }
        self.bar.set_position(done);
    }

    /// Takes the bar off the terminal.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Default for SeedProgress {
    fn default() -> Self {
        SeedProgress::new()
    }
}

fn bar_style() -> ProgressStyle {
    // The template is a constant that parses; fall back to the default style all the same.
    ProgressStyle::with_template(
        "{msg:>14} [{bar:40}] {human_pos}/{human_len} {per_sec:>12} {eta:>4} left",
    )
    .map(|style| style.progress_chars("=> "))
    .unwrap_or_else(|_| ProgressStyle::default_bar())
}

fn spinner_style() -> ProgressStyle {
    ProgressStyle::with_template("{msg:>14} {spinner} {elapsed}")
        .unwrap_or_else(|_| ProgressStyle::default_spinner())
}
