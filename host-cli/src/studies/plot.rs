//! SVG charts for the analyses, drawn with plotters' SVG backend only.
//!
//! No font library is linked (plotters is built without `ttf`): text is
//! laid out with plotters' approximate metrics and written as SVG `<text>`
//! in the `sans-serif` family, which the viewer renders. So the charts
//! build on a machine without fontconfig or freetype.
//!
//! Every chart has a title, a subtitle naming the trace, window, estimates
//! and load, one legend for all its panels (drawn above them, so it never
//! hides data), axis descriptions, and category labels under the groups.
//! Colours follow the Okabe-Ito palette, one fixed colour per policy, so the
//! same policy has the same colour in every figure.

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// One named series of values (`None` where there is no value).
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// Legend name.
    pub name: String,
    /// One value per category or x position.
    pub values: Vec<Option<f64>>,
}

/// A grouped bar chart panel: one group per category, one bar per series.
#[derive(Clone, Debug, PartialEq)]
pub struct BarPanel {
    /// Panel title.
    pub title: String,
    /// Y axis description.
    pub y_label: String,
    /// Group labels.
    pub categories: Vec<String>,
    /// Bars of each group, in order.
    pub series: Vec<Series>,
}

/// A line chart panel.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct LinePanel {
    /// Panel title.
    pub(crate) title: String,
    /// X axis description.
    pub(crate) x_label: String,
    /// Y axis description.
    pub(crate) y_label: String,
    /// X positions.
    pub(crate) xs: Vec<f64>,
    /// One line per series.
    pub(crate) series: Vec<Series>,
}

/// A stacked bar chart panel: one bar per category, layers stacked bottom-up.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct StackPanel {
    /// Panel title.
    pub(crate) title: String,
    /// Bar labels.
    pub(crate) categories: Vec<String>,
    /// Layers, bottom first; one value per category.
    pub(crate) layers: Vec<Series>,
}

const WIDTH: u32 = 1100;
const HEADER: u32 = 100;
const FONT: &str = "sans-serif";

/// plotters' SVG backend writes font sizes scaled by 1/1.24; this gives a
/// font whose rendered size is `px` pixels.
fn font(px: f64) -> FontDesc<'static> {
    (FONT, px * 1.24).into_font()
}
/// Percent changes above this are drawn clipped, with their value written.
const BAR_CAP: f64 = 300.0;

/// The colour of a policy (or of the `index`-th unknown series).
#[must_use]
pub(crate) fn color(name: &str, index: usize) -> RGBColor {
    match name {
        "conservative" => RGBColor(0x99, 0x99, 0x99),
        "easy" => RGBColor(0x00, 0x72, 0xB2),
        "selective" => RGBColor(0xE6, 0x9F, 0x00),
        "selective-d" => RGBColor(0x00, 0x9E, 0x73),
        "sjf-easy" => RGBColor(0xD5, 0x5E, 0x00),
        "selective-adaptive" => RGBColor(0xCC, 0x79, 0xA7),
        "selective-scaled" => RGBColor(0x56, 0xB4, 0xE9),
        "fcfs" => RGBColor(0x33, 0x33, 0x33),
        "bf-fcfs" => RGBColor(0x00, 0x72, 0xB2),
        "bf-unmod" => RGBColor(0xE6, 0x9F, 0x00),
        "bf-mod" => RGBColor(0x00, 0x9E, 0x73),
        "dpsa-p" => RGBColor(0xD7, 0x30, 0x27),
        "dpsa-n" => RGBColor(0x1A, 0x98, 0x50),
        "dpsa-w" => RGBColor(0x76, 0x2A, 0x83),
        _ => {
            const MORE: [RGBColor; 6] = [
                RGBColor(0xFD, 0xAE, 0x61),
                RGBColor(0xF4, 0x6D, 0x43),
                RGBColor(0xD7, 0x30, 0x27),
                RGBColor(0x80, 0x00, 0x26),
                RGBColor(0x4D, 0x4D, 0x4D),
                RGBColor(0x74, 0xAD, 0xD1),
            ];
            MORE[index % MORE.len()]
        }
    }
}

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// Black or white, whichever reads better on `c`.
fn contrast(c: RGBColor) -> RGBColor {
    let RGBColor(r, g, b) = c;
    let luma = 299 * u32::from(r) + 587 * u32::from(g) + 114 * u32::from(b);
    if luma < 140_000 {
        WHITE
    } else {
        BLACK
    }
}

fn err<E: std::fmt::Debug>(e: E) -> String {
    format!("drawing the chart failed: {e:?}")
}

/// Title, subtitle and a legend of coloured squares across the top.
fn header(
    root: &Area<'_>,
    title: &str,
    (subtitle, subtitle_px): (&str, f64),
    legend: &[(String, RGBColor)],
) -> Result<(), String> {
    let bold = font(24.0).style(FontStyle::Bold).color(&BLACK);
    root.draw(&Text::new(title.to_owned(), (20, 12), bold))
        .map_err(err)?;
    let sub = font(subtitle_px).color(&RGBColor(0x40, 0x40, 0x40));
    root.draw(&Text::new(subtitle.to_owned(), (20, 44), sub))
        .map_err(err)?;
    let mut x = 20i32;
    let y = 74i32;
    let style = font(17.0).color(&BLACK);
    for (name, c) in legend {
        root.draw(&Rectangle::new([(x, y), (x + 18, y + 18)], c.filled()))
            .map_err(err)?;
        root.draw(&Text::new(name.clone(), (x + 24, y + 1), style.clone()))
            .map_err(err)?;
        // Approximate text width: 0.6 em per character.
        x += 24 + 10 * i32::try_from(name.chars().count()).unwrap_or(20) + 26;
    }
    Ok(())
}

fn range_of(values: impl Iterator<Item = f64>, cap: Option<f64>) -> (f64, f64) {
    let (mut lo, mut hi) = (0.0f64, 0.0f64);
    for v in values.filter(|v| v.is_finite()) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if let Some(cap) = cap {
        hi = hi.min(cap);
        lo = lo.max(-cap);
    }
    let pad = ((hi - lo) * 0.12).max(1e-9);
    if hi == 0.0 && lo == 0.0 {
        return (-1.0, 1.0);
    }
    (
        if lo < 0.0 { lo - pad } else { 0.0 },
        if hi > 0.0 { hi + pad } else { pad },
    )
}

fn short_value(v: f64) -> String {
    if v.abs() >= 10.0 {
        format!("{v:+.0}")
    } else {
        format!("{v:+.1}")
    }
}

/// A figure `height` pixels high: the title, the subtitle (`subtitle.1`
/// pixels high) and `legend` across the top, then `draw` with the whole
/// drawing area and the body below the header.
fn figure(
    height: u32,
    title: &str,
    subtitle: (&str, f64),
    legend: &[(String, RGBColor)],
    draw: impl FnOnce(&Area<'_>, &Area<'_>) -> Result<(), String>,
) -> Result<String, String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        header(&root, title, subtitle, legend)?;
        let (_, body) = root.split_vertically(HEADER);
        draw(&root, &body)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// The legend entries (name and colour) for the series named by `names`,
/// in order; empty without a first panel.
fn legend<'a>(names: Option<impl Iterator<Item = &'a str>>) -> Vec<(String, RGBColor)> {
    names.map_or_else(Vec::new, |names| {
        names
            .enumerate()
            .map(|(i, name)| (name.to_owned(), color(name, i)))
            .collect()
    })
}

/// Grouped bar charts of percent changes, panels stacked vertically.
/// Bars beyond +-300% are cut at the axis end, their values written along
/// them inside the bar (so neighbouring labels never meet and none reaches
/// the panel title), and the panel title says that bars were cut.
///
/// # Errors
/// A message if drawing fails.
pub fn grouped_bars(title: &str, subtitle: &str, panels: &[BarPanel]) -> Result<String, String> {
    let panel_h = 330u32;
    let height = HEADER + panel_h * u32::try_from(panels.len()).unwrap_or(1);
    let legend = legend(
        panels
            .first()
            .map(|p| p.series.iter().map(|s| s.name.as_str())),
    );
    figure(height, title, (subtitle, 17.0), &legend, |root, body| {
        let areas = body.split_evenly((panels.len().max(1), 1));
        for (panel, area) in panels.iter().zip(&areas) {
            bar_panel(root, area, panel)?;
        }
        Ok(())
    })
}

fn bar_panel(root: &Area<'_>, area: &Area<'_>, panel: &BarPanel) -> Result<(), String> {
    let n = panel.categories.len().max(1);
    #[allow(clippy::cast_precision_loss)]
    let nf = n as f64;
    let (lo, hi) = range_of(
        panel
            .series
            .iter()
            .flat_map(|s| s.values.iter().flatten().copied()),
        Some(BAR_CAP),
    );
    let clips = panel
        .series
        .iter()
        .flat_map(|s| s.values.iter().flatten())
        .any(|v| v.is_finite() && !(lo..=hi).contains(v));
    let title = if clips {
        format!("{} (bars past {BAR_CAP}% cut)", panel.title)
    } else {
        panel.title.clone()
    };
    let mut chart = ChartBuilder::on(area)
        .caption(&title, font(18.0).style(FontStyle::Bold))
        .margin_left(12)
        .margin_right(20)
        .margin_top(8)
        .margin_bottom(6)
        .x_label_area_size(34)
        .y_label_area_size(78)
        .build_cartesian_2d(-0.5f64..(nf - 0.5), lo..hi)
        .map_err(err)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_labels(8)
        .y_desc(panel.y_label.as_str())
        .y_label_formatter(&|v| format!("{v:.0}%"))
        .axis_desc_style(font(15.0))
        .label_style(font(14.0))
        .max_light_lines(0)
        .draw()
        .map_err(err)?;
    // Zero line.
    chart
        .draw_series(LineSeries::new(
            vec![(-0.5, 0.0), (nf - 0.5, 0.0)],
            BLACK.stroke_width(1),
        ))
        .map_err(err)?;
    let k = panel.series.len().max(1);
    #[allow(clippy::cast_precision_loss)]
    let width = 0.8 / k as f64;
    let px_width = {
        let (a, _) = chart.backend_coord(&(0.0, 0.0));
        let (b, _) = chart.backend_coord(&(width, 0.0));
        b - a
    };
    let value_style = font(12.5).color(&BLACK);
    for (si, s) in panel.series.iter().enumerate() {
        let c = color(&s.name, si);
        for (ci, v) in s.values.iter().enumerate() {
            let Some(v) = v.filter(|v| v.is_finite()) else {
                continue;
            };
            #[allow(clippy::cast_precision_loss)]
            let x0 = ci as f64 - 0.4 + width * si as f64;
            let shown = v.clamp(lo, hi);
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(x0 + width * 0.06, 0.0), (x0 + width * 0.94, shown)],
                    c.filled(),
                )))
                .map_err(err)?;
            let clipped = (shown - v).abs() > 1e-9;
            if clipped {
                // Written inside the cut bar, along it, from its cut end:
                // wide labels of neighbouring bars cannot meet, and none
                // reaches into the panel title above the plot.
                let (px, py) = chart.backend_coord(&(x0 + width / 2.0, shown));
                let (h_pos, dy) = if v >= 0.0 {
                    (HPos::Right, 5)
                } else {
                    (HPos::Left, -5)
                };
                let ink = contrast(c);
                let inside = value_style
                    .clone()
                    .color(&ink)
                    .transform(FontTransform::Rotate270)
                    .pos(Pos::new(h_pos, VPos::Center));
                root.draw(&Text::new(
                    format!("{}%!", short_value(v)),
                    (px, py + dy),
                    inside,
                ))
                .map_err(err)?;
            } else if px_width >= 30 {
                let (px, py) = chart.backend_coord(&(x0 + width / 2.0, shown));
                let (anchor, dy) = if v >= 0.0 {
                    (VPos::Bottom, -3)
                } else {
                    (VPos::Top, 3)
                };
                root.draw(&Text::new(
                    short_value(v),
                    (px, py + dy),
                    value_style.clone().pos(Pos::new(HPos::Center, anchor)),
                ))
                .map_err(err)?;
            }
        }
    }
    category_labels(root, &chart, &panel.categories, lo)
}

fn category_labels<DB: DrawingBackend>(
    root: &Area<'_>,
    chart: &ChartContext<
        '_,
        DB,
        Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
    >,
    categories: &[String],
    y_min: f64,
) -> Result<(), String> {
    let style = font(15.0)
        .style(FontStyle::Bold)
        .color(&BLACK)
        .pos(Pos::new(HPos::Center, VPos::Top));
    let small = font(13.0)
        .color(&RGBColor(0x40, 0x40, 0x40))
        .pos(Pos::new(HPos::Center, VPos::Top));
    for (i, label) in categories.iter().enumerate() {
        #[allow(clippy::cast_precision_loss)]
        let (px, py) = chart.backend_coord(&(i as f64, y_min));
        // A second line, if any, is drawn smaller below the first.
        let mut lines = label.lines();
        if let Some(first) = lines.next() {
            root.draw(&Text::new(first.to_owned(), (px, py + 7), style.clone()))
                .map_err(err)?;
        }
        if let Some(second) = lines.next() {
            root.draw(&Text::new(second.to_owned(), (px, py + 26), small.clone()))
                .map_err(err)?;
        }
    }
    Ok(())
}

/// A load factor for an axis label: two decimals at most, at least one
/// (`1.0`, `1.05`, `1.6`).
fn load_text(v: f64) -> String {
    let s = format!("{v:.2}");
    match s.strip_suffix('0') {
        Some(t) => t.to_owned(),
        None => s,
    }
}

/// Line charts, panels side by side; each series a line with markers.
///
/// # Errors
/// A message if drawing fails.
pub(crate) fn lines(title: &str, subtitle: &str, panels: &[LinePanel]) -> Result<String, String> {
    let height = HEADER + 470;
    let legend = legend(
        panels
            .first()
            .map(|p| p.series.iter().map(|s| s.name.as_str())),
    );
    figure(height, title, (subtitle, 17.0), &legend, |_, body| {
        let areas = body.split_evenly((1, panels.len().max(1)));
        for (panel, area) in panels.iter().zip(&areas) {
            line_panel(area, panel)?;
        }
        Ok(())
    })
}

fn line_panel(area: &Area<'_>, panel: &LinePanel) -> Result<(), String> {
    let xmin = panel.xs.iter().copied().fold(f64::INFINITY, f64::min);
    let xmax = panel.xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (xmin, xmax) = if xmin.is_finite() && xmax > xmin {
        let pad = (xmax - xmin) * 0.05;
        (xmin - pad, xmax + pad)
    } else {
        (0.0, 2.0)
    };
    let (_, hi) = range_of(
        panel
            .series
            .iter()
            .flat_map(|s| s.values.iter().flatten().copied()),
        None,
    );
    let mut chart = ChartBuilder::on(area)
        .caption(&panel.title, font(18.0).style(FontStyle::Bold))
        .margin(14)
        .x_label_area_size(52)
        .y_label_area_size(84)
        .build_cartesian_2d(xmin..xmax, 0.0..hi)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_labels(panel.xs.len().clamp(2, 12))
        .y_labels(8)
        .x_desc(panel.x_label.as_str())
        .y_desc(panel.y_label.as_str())
        .x_label_formatter(&|v| load_text(*v))
        .y_label_formatter(&|v| {
            if hi >= 100.0 {
                format!("{v:.0}")
            } else {
                format!("{v:.1}")
            }
        })
        .axis_desc_style(font(15.0))
        .label_style(font(14.0))
        .max_light_lines(0)
        .draw()
        .map_err(err)?;
    for (si, s) in panel.series.iter().enumerate() {
        let c = color(&s.name, si);
        let points: Vec<(f64, f64)> = panel
            .xs
            .iter()
            .zip(&s.values)
            .filter_map(|(&x, v)| v.filter(|v| v.is_finite()).map(|v| (x, v)))
            .collect();
        chart
            .draw_series(LineSeries::new(points.clone(), c.stroke_width(3)))
            .map_err(err)?;
        // Markers only where there are few points (a time series has
        // hundreds).
        if points.len() <= MARKED_POINTS {
            chart
                .draw_series(points.iter().map(|&p| Circle::new(p, 5, c.filled())))
                .map_err(err)?;
        }
    }
    Ok(())
}

/// Lines with at most this many points get a marker at each.
const MARKED_POINTS: usize = 60;

/// Stacked bar charts in a grid of two columns, one panel per entry, with a
/// shared y axis (percent) so panels compare directly.
///
/// # Errors
/// A message if drawing fails.
pub(crate) fn stacked_bars(
    title: &str,
    subtitle: &str,
    y_label: &str,
    panels: &[StackPanel],
) -> Result<String, String> {
    let cols = 2usize;
    let rows = panels.len().div_ceil(cols).max(1);
    let height = HEADER + 360 * u32::try_from(rows).unwrap_or(1);
    let mut totals = panels.iter().flat_map(|p| {
        (0..p.categories.len()).map(move |i| {
            p.layers
                .iter()
                .filter_map(|l| l.values.get(i).copied().flatten())
                .sum::<f64>()
        })
    });
    let top = totals.by_ref().fold(0.0f64, f64::max);
    let hi = if top > 0.0 { top * 1.15 } else { 1.0 };
    let legend: Vec<(String, RGBColor)> = panels
        .first()
        .map(|p| {
            p.layers
                .iter()
                .enumerate()
                .map(|(i, s)| (s.name.clone(), color(&s.name, i)))
                .collect()
        })
        .unwrap_or_default();
    figure(height, title, (subtitle, 17.0), &legend, |root, body| {
        let areas = body.split_evenly((rows, cols));
        for (panel, area) in panels.iter().zip(&areas) {
            stack_panel(root, area, panel, hi, y_label)?;
        }
        Ok(())
    })
}

fn stack_panel(
    root: &Area<'_>,
    area: &Area<'_>,
    panel: &StackPanel,
    hi: f64,
    y_label: &str,
) -> Result<(), String> {
    let n = panel.categories.len().max(1);
    #[allow(clippy::cast_precision_loss)]
    let nf = n as f64;
    let mut chart = ChartBuilder::on(area)
        .caption(&panel.title, font(17.0).style(FontStyle::Bold))
        .margin_left(10)
        .margin_right(16)
        .margin_top(8)
        .x_label_area_size(48)
        .y_label_area_size(70)
        .build_cartesian_2d(-0.5f64..(nf - 0.5), 0.0..hi)
        .map_err(err)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_labels(6)
        .y_desc(y_label)
        .y_label_formatter(&|v| format!("{v:.1}%"))
        .axis_desc_style(font(15.0))
        .label_style(font(14.0))
        .max_light_lines(0)
        .draw()
        .map_err(err)?;
    let total_style = font(13.0)
        .color(&BLACK)
        .pos(Pos::new(HPos::Center, VPos::Bottom));
    for i in 0..panel.categories.len() {
        let mut base = 0.0;
        #[allow(clippy::cast_precision_loss)]
        let x = i as f64;
        for (li, layer) in panel.layers.iter().enumerate() {
            let v = layer.values.get(i).copied().flatten().unwrap_or(0.0);
            if v > 0.0 {
                chart
                    .draw_series(std::iter::once(Rectangle::new(
                        [(x - 0.32, base), (x + 0.32, base + v)],
                        color(&layer.name, li).filled(),
                    )))
                    .map_err(err)?;
            }
            base += v;
        }
        let (px, py) = chart.backend_coord(&(x, base));
        root.draw(&Text::new(
            format!("{base:.1}%"),
            (px, py - 3),
            total_style.clone(),
        ))
        .map_err(err)?;
    }
    category_labels(root, &chart, &panel.categories, 0.0)
}

/// Points of one series for [`scatter`]: `(x, y, label)`; the label (may
/// be empty) is written beside the point.
#[derive(Clone, Debug, PartialEq)]
pub struct PointSeries {
    /// Legend name.
    pub name: String,
    /// The points.
    pub points: Vec<(f64, f64, String)>,
    /// Whether to join the points, in order, by a line.
    pub joined: bool,
}

/// One scatter chart of percent changes (y, with a zero line) against any
/// quantity (x), points labelled; values beyond +-300% are clipped at the
/// axis end.
///
/// # Errors
/// A message if drawing fails.
pub fn scatter(
    title: &str,
    subtitle: &str,
    x_label: &str,
    y_label: &str,
    series: &[PointSeries],
) -> Result<String, String> {
    let height = HEADER + 520;
    let points = || series.iter().flat_map(|s| s.points.iter());
    let xmin = points().map(|p| p.0).fold(f64::INFINITY, f64::min);
    let xmax = points().map(|p| p.0).fold(f64::NEG_INFINITY, f64::max);
    let (xmin, xmax) = if xmin.is_finite() && xmax > xmin {
        let pad = (xmax - xmin) * 0.08;
        (xmin - pad, xmax + pad)
    } else {
        (0.0, 1.0)
    };
    let (lo, hi) = range_of(points().map(|p| p.1), Some(BAR_CAP));
    let legend = legend(Some(series.iter().map(|s| s.name.as_str())));
    figure(height, title, (subtitle, 17.0), &legend, |root, body| {
        let mut chart = ChartBuilder::on(body)
            .margin(14)
            .margin_right(40)
            .x_label_area_size(52)
            .y_label_area_size(84)
            .build_cartesian_2d(xmin..xmax, lo..hi)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_labels(10)
            .y_labels(8)
            .x_desc(x_label)
            .y_desc(y_label)
            .y_label_formatter(&|v| format!("{v:.0}%"))
            .axis_desc_style(font(15.0))
            .label_style(font(14.0))
            .max_light_lines(0)
            .draw()
            .map_err(err)?;
        chart
            .draw_series(LineSeries::new(
                vec![(xmin, 0.0), (xmax, 0.0)],
                BLACK.stroke_width(1),
            ))
            .map_err(err)?;
        let label_style = font(12.5).color(&RGBColor(0x30, 0x30, 0x30));
        for (si, s) in series.iter().enumerate() {
            let c = color(&s.name, si);
            let shown: Vec<(f64, f64)> =
                s.points.iter().map(|p| (p.0, p.1.clamp(lo, hi))).collect();
            if s.joined {
                chart
                    .draw_series(LineSeries::new(shown.clone(), c.stroke_width(2)))
                    .map_err(err)?;
            }
            chart
                .draw_series(shown.iter().map(|&p| Circle::new(p, 5, c.filled())))
                .map_err(err)?;
            for (p, &(x, y)) in s.points.iter().zip(&shown) {
                if p.2.is_empty() {
                    continue;
                }
                let (px, py) = chart.backend_coord(&(x, y));
                root.draw(&Text::new(
                    p.2.clone(),
                    (px + 8, py - 7),
                    label_style.clone(),
                ))
                .map_err(err)?;
            }
        }
        Ok(())
    })
}

/// One policy's line of an [`interval_lines`] chart: per x, the mean and the half-width of its 95%
/// confidence interval.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct IntervalLine {
    /// Policy name (legend and colour).
    pub(crate) name: String,
    /// `(mean, ci95)` per x position, `None` where there is no value.
    pub(crate) points: Vec<Option<(f64, f64)>>,
}

/// One panel of an [`interval_lines`] chart: a categorical x axis (evenly
/// spaced), one line per policy with its 95% confidence interval as error
/// bars, an optional logarithmic y axis.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct IntervalPanel {
    /// Title.
    pub(crate) title: String,
    /// X axis description.
    pub(crate) x_label: String,
    /// Y axis description.
    pub(crate) y_label: String,
    /// X labels, evenly spaced.
    pub(crate) xs: Vec<String>,
    /// Lines.
    pub(crate) lines: Vec<IntervalLine>,
    /// Logarithmic y axis.
    pub(crate) log_y: bool,
}

/// Height of an interval chart's panels.
const INTERVAL_HEIGHT: u32 = 460;

/// Interval line charts (the farm study's figures): panels side by side
/// under a title, a subtitle and one legend.
///
/// # Errors
/// A message if drawing fails.
pub(crate) fn interval_lines(
    title: &str,
    subtitle: &str,
    panels: &[IntervalPanel],
) -> Result<String, String> {
    let legend = legend(
        panels
            .first()
            .map(|p| p.lines.iter().map(|l| l.name.as_str())),
    );
    figure(
        HEADER + INTERVAL_HEIGHT,
        title,
        (subtitle, 16.0),
        &legend,
        |root, body| {
            let areas = body.split_evenly((1, panels.len().max(1)));
            for (panel, area) in panels.iter().zip(&areas) {
                interval_panel(root, area, panel)?;
            }
            Ok(())
        },
    )
}

fn interval_panel(root: &Area<'_>, area: &Area<'_>, panel: &IntervalPanel) -> Result<(), String> {
    let values: Vec<f64> = panel
        .lines
        .iter()
        .flat_map(|l| l.points.iter().flatten())
        .flat_map(|&(m, ci)| [m - ci, m + ci])
        .filter(|v| v.is_finite())
        .collect();
    let hi = values.iter().copied().fold(0.0f64, f64::max);
    let lo = values
        .iter()
        .copied()
        .filter(|&v| v > 0.0)
        .fold(f64::INFINITY, f64::min);
    #[allow(clippy::cast_precision_loss)]
    let n = panel.xs.len().max(1) as f64;
    let mut builder = ChartBuilder::on(area);
    builder
        .caption(&panel.title, font(17.0).style(FontStyle::Bold))
        .margin(14)
        .x_label_area_size(56)
        .y_label_area_size(80);
    let x_range = -0.5f64..(n - 0.5);
    if panel.log_y {
        let lo = if lo.is_finite() { lo / 1.3 } else { 0.1 };
        let hi = (hi * 1.3).max(lo * 10.0);
        let mut chart = builder
            .build_cartesian_2d(x_range, (lo..hi).log_scale())
            .map_err(err)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(0)
            .y_desc(panel.y_label.as_str())
            .y_label_formatter(&|v| format!("{v}"))
            .axis_desc_style(font(15.0))
            .label_style(font(13.0))
            .draw()
            .map_err(err)?;
        interval_series(root, &mut chart, panel, lo)
    } else {
        let hi = (hi * 1.12).max(1e-9);
        let mut chart = builder.build_cartesian_2d(x_range, 0.0..hi).map_err(err)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(0)
            .y_labels(8)
            .y_desc(panel.y_label.as_str())
            .y_label_formatter(&|v| {
                if hi >= 20.0 {
                    format!("{v:.0}")
                } else {
                    format!("{v:.1}")
                }
            })
            .axis_desc_style(font(15.0))
            .label_style(font(13.0))
            .draw()
            .map_err(err)?;
        interval_series(root, &mut chart, panel, 0.0)
    }
}

/// Draws each line of `panel` on `chart`, linear or logarithmic in y: the
/// means joined, a dot on each and the confidence interval as a bar (its
/// low end no lower than `bottom`, the axis' lowest value), then the x
/// labels under the axis.
fn interval_series<Y: Ranged<ValueType = f64>>(
    root: &Area<'_>,
    chart: &mut ChartContext<'_, SVGBackend<'_>, Cartesian2d<RangedCoordf64, Y>>,
    panel: &IntervalPanel,
    bottom: f64,
) -> Result<(), String> {
    for (i, line) in panel.lines.iter().enumerate() {
        let c = color(&line.name, i);
        let pts = interval_points(line, |m, ci| (m - ci).max(bottom));
        chart
            .draw_series(LineSeries::new(
                pts.iter().map(|p| (p.0, p.1)),
                c.stroke_width(3),
            ))
            .map_err(err)?;
        chart
            .draw_series(pts.iter().map(|p| Circle::new((p.0, p.1), 5, c.filled())))
            .map_err(err)?;
        chart
            .draw_series(
                pts.iter()
                    .map(|p| PathElement::new(vec![(p.0, p.2), (p.0, p.3)], c.stroke_width(2))),
            )
            .map_err(err)?;
    }
    let y = chart.backend_coord(&(0.0, bottom)).1;
    interval_labels(root, &panel.xs, &panel.x_label, |i| {
        #[allow(clippy::cast_precision_loss)]
        let x = chart.backend_coord(&(i as f64, bottom)).0;
        (x, y)
    })
}

/// `(x, mean, low, high)` of a line's points (x = index), the low end
/// through `floor`.
fn interval_points(
    line: &IntervalLine,
    floor: impl Fn(f64, f64) -> f64,
) -> Vec<(f64, f64, f64, f64)> {
    line.points
        .iter()
        .enumerate()
        .filter_map(|(i, p)| {
            p.filter(|(m, ci)| m.is_finite() && ci.is_finite())
                .map(|(m, ci)| {
                    #[allow(clippy::cast_precision_loss)]
                    let x = i as f64;
                    (x, m, floor(m, ci), m + ci)
                })
        })
        .collect()
}

fn interval_labels(
    root: &Area<'_>,
    xs: &[String],
    x_label: &str,
    at: impl Fn(usize) -> (i32, i32),
) -> Result<(), String> {
    let style = font(14.0)
        .color(&BLACK)
        .pos(Pos::new(HPos::Center, VPos::Top));
    let mut middle = (0, 0);
    for (i, label) in xs.iter().enumerate() {
        let (x, y) = at(i);
        root.draw(&Text::new(label.clone(), (x, y + 8), style.clone()))
            .map_err(err)?;
        if i == xs.len() / 2 {
            middle = (x, y);
        }
    }
    if xs.len() % 2 == 0 && xs.len() >= 2 {
        let (a, _) = at(xs.len() / 2 - 1);
        middle.0 = (a + middle.0) / 2;
    }
    root.draw(&Text::new(
        x_label.to_owned(),
        (middle.0, middle.1 + 30),
        font(15.0)
            .color(&BLACK)
            .pos(Pos::new(HPos::Center, VPos::Top)),
    ))
    .map_err(err)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `<text>` element of an SVG and the box it covers, estimated as
    /// the SVG viewer lays it out (0.6 em per character).
    #[derive(Debug)]
    struct TextBox {
        text: String,
        x: (f64, f64),
        y: (f64, f64),
    }

    impl TextBox {
        fn overlaps(&self, other: &Self) -> bool {
            self.x.0 < other.x.1
                && other.x.0 < self.x.1
                && self.y.0 < other.y.1
                && other.y.0 < self.y.1
        }
    }

    fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
        let start = tag.find(&format!(" {name}=\""))? + name.len() + 3;
        tag[start..].split('"').next()
    }

    fn text_boxes(svg: &str) -> Vec<TextBox> {
        svg.split("<text")
            .skip(1)
            .map(|rest| {
                let (tag, after) = rest.split_once('>').unwrap();
                let text = after.split("</text>").next().unwrap().trim().to_owned();
                let num = |name: &str| attr(tag, name).unwrap().parse::<f64>().unwrap();
                let (x, y, size) = (num("x"), num("y"), num("font-size"));
                let (w, h) = (0.6 * size * text.chars().count() as f64, size);
                let along = match attr(tag, "text-anchor") {
                    Some("end") => (-w, 0.0),
                    Some("middle") => (-w / 2.0, w / 2.0),
                    _ => (0.0, w),
                };
                let across = match attr(tag, "dy") {
                    Some("0.76em") => (0.0, h),
                    Some("-0.5ex") => (-h, 0.0),
                    _ => (-h / 2.0, h / 2.0),
                };
                if attr(tag, "transform").is_some_and(|t| t.starts_with("rotate(270")) {
                    // Turned a quarter left about (x, y): along the text is up.
                    TextBox {
                        text,
                        x: (x + across.0, x + across.1),
                        y: (y - along.1, y - along.0),
                    }
                } else {
                    TextBox {
                        text,
                        x: (x + along.0, x + along.1),
                        y: (y + across.0, y + across.1),
                    }
                }
            })
            .collect()
    }

    /// Six policies with bars cut at +300% side by side: the values written
    /// on cut bars meet neither each other nor the panel titles.
    #[test]
    fn labels_of_cut_bars_stay_clear_of_titles_and_each_other() {
        let names = [
            "fcfs",
            "easy",
            "sjf-easy",
            "selective",
            "selective-d",
            "selective-adaptive",
        ];
        let panel = |title: &str| BarPanel {
            title: title.into(),
            y_label: "% change".into(),
            categories: ["all", "SN", "SW", "LN", "LW"].map(str::to_owned).to_vec(),
            series: names
                .iter()
                .enumerate()
                .map(|(k, name)| Series {
                    name: (*name).to_owned(),
                    values: (0..5)
                        .map(|c| {
                            Some(if (k + c) % 3 == 0 {
                                -40.0
                            } else {
                                1234.0 + 1000.0 * k as f64
                            })
                        })
                        .collect(),
                })
                .collect(),
        };
        let svg = grouped_bars(
            "T",
            "sub",
            &[
                panel("first metric"),
                panel("second metric"),
                panel("third metric"),
            ],
        )
        .unwrap();
        let boxes = text_boxes(&svg);
        let titles: Vec<&TextBox> = boxes.iter().filter(|b| b.text.contains("metric")).collect();
        let cut: Vec<&TextBox> = boxes.iter().filter(|b| b.text.ends_with("%!")).collect();
        assert_eq!(titles.len(), 3);
        assert!(titles
            .iter()
            .all(|t| t.text.ends_with("(bars past 300% cut)")));
        assert_eq!(cut.len(), 3 * 20, "one label per cut bar");
        for (i, a) in cut.iter().enumerate() {
            for t in &titles {
                assert!(!a.overlaps(t), "{a:?} meets the title {t:?}");
            }
            for b in &cut[i + 1..] {
                assert!(!a.overlaps(b), "{a:?} meets {b:?}");
            }
        }
    }

    #[test]
    fn charts_are_svg_with_labels() {
        let bars = grouped_bars(
            "T",
            "sub",
            &[BarPanel {
                title: "slowdown".into(),
                y_label: "%".into(),
                categories: vec!["all".into(), "SN".into()],
                series: vec![Series {
                    name: "easy".into(),
                    values: vec![Some(-12.5), Some(900.0)],
                }],
            }],
        )
        .unwrap();
        assert!(bars.starts_with("<svg"), "{}", &bars[..50]);
        for text in ["slowdown", "easy", "SN", "+900%!"] {
            assert!(bars.contains(text), "{text} missing");
        }
        let l = lines(
            "T",
            "sub",
            &[LinePanel {
                title: "p".into(),
                x_label: "load".into(),
                y_label: "bsld".into(),
                xs: vec![1.0, 1.2],
                series: vec![Series {
                    name: "selective".into(),
                    values: vec![Some(2.0), None],
                }],
            }],
        )
        .unwrap();
        assert!(l.contains("selective") && l.contains("load"));
        assert_eq!(load_text(1.05), "1.05");
        assert_eq!(load_text(1.1), "1.1");
        assert_eq!(load_text(1.0), "1.0");
        let s = stacked_bars(
            "T",
            "sub",
            "% of jobs",
            &[StackPanel {
                title: "easy".into(),
                categories: vec!["all".into()],
                layers: vec![Series {
                    name: ">4".into(),
                    values: vec![Some(3.0)],
                }],
            }],
        )
        .unwrap();
        assert!(s.contains("3.0%"));
        let p = scatter(
            "T",
            "sub",
            "utilisation %",
            "change",
            &[PointSeries {
                name: "dpsa-n".into(),
                points: vec![(60.0, -5.0, "Atlas".into()), (85.0, 400.0, String::new())],
                joined: false,
            }],
        )
        .unwrap();
        assert!(p.contains("Atlas") && p.contains("dpsa-n"));
    }

    #[test]
    fn draws_interval_lines_on_linear_and_log_panels() {
        let line = |name: &str, k: f64| IntervalLine {
            name: name.into(),
            points: vec![Some((k, 0.5)), None, Some((10.0 * k, 1.0))],
        };
        let panel = |log_y| IntervalPanel {
            title: "t".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            xs: vec!["4".into(), "6".into(), "12".into()],
            lines: vec![line("fcfs", 1.0), line("bf-mod", 2.0)],
            log_y,
        };
        let svg = interval_lines("title", "sub", &[panel(false), panel(true)]).unwrap();
        assert!(svg.starts_with("<svg"));
        assert!(svg.contains("bf-mod") && svg.contains("\n12\n"));
        assert_eq!(color("bf-unmod", 0), RGBColor(0xE6, 0x9F, 0x00));
    }
}
