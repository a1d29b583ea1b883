//! Counting both answers, so that the check cannot pass without exercising what it compares:
//! overall, per argument (accepted with it given, rejected for it alone), for unknown names,
//! at every edge of every schema in the tree (accepted at the outermost value it lets in,
//! rejected at the first it keeps out for that edge alone), and at every string format but
//! `uuid` (a string accepted there, a string rejected for the format alone).
//!
//! "For that edge alone" is the validator's word, not the parser's: a rejected object counts
//! at an edge when the schema with that edge's keyword taken out (that one name out of
//! `required`, for a required field; the `format`, for a format) accepts it.

mod crossing;
mod without;

use crate::Violations;
use jsonschema::Validator;
use serde_json::{Value, json};

use crate::testing::agreement::ecma::spelt_out;
use crate::testing::agreement::schema::{Edge, Kind, Property, Schema, Side};
use crate::testing::agreement::{Verdict, compile};
use crossing::{Crossings, crossing};
use without::{without, without_format};

/// How often each answer occurred.
pub struct Tally {
    accepted: u32,
    rejected: u32,
    /// Rejected only for unknown names.
    unknown_alone: u32,
    /// Per argument, in the order of the root's fields.
    args: Vec<ArgTally>,
    /// Per schema in the tree, by id.
    sites: Vec<Vec<EdgeTally>>,
    /// Per schema in the tree, by id, for those of a format.
    formats: Vec<Option<FormatTally>>,
    /// Per schema in the tree, by id: whether it lies inside a branch of an `anyOf`, where
    /// another branch may take the values this one keeps out.
    shadowed: Vec<bool>,
}

/// The counts at a schema of a format (which has no edge in the model: every string is as near
/// its format's rule as another), and what it takes to judge them.
struct FormatTally {
    /// Accepted with a string there.
    accepted: u32,
    /// Rejected with a string there, for the format alone.
    refused: u32,
    /// The input schema with this schema's `format` taken out.
    without: Validator,
}

#[derive(Default)]
struct ArgTally {
    /// Accepted with this argument given.
    given: u32,
    /// Rejected for this argument alone.
    blamed_alone: u32,
}

/// The counts at one edge, and what it takes to judge them.
struct EdgeTally {
    /// Accepted with a value at the outermost value the edge lets in.
    let_in: u32,
    /// Rejected with a value at the first value past the edge, for it alone.
    kept_out: u32,
    /// For [`Edge::Unique`]: of `kept_out`, those whose equal elements are written apart, like
    /// `1` and `1.0` (no two elements are `==` as serde_json compares them).
    kept_out_written_apart: u32,
    /// The input schema with this edge's keyword taken out.
    without: Validator,
    /// For [`Edge::Pattern`]: the pattern alone, which tells a string that matches it.
    matches: Option<Validator>,
}

impl Tally {
    /// Counts for the tool whose root schema is `root`, and whose input schema, as the
    /// validator is given it, is `schema`.
    pub fn new(root: &Schema, schema: &Value) -> Self {
        every_rule_has_an_edge(root, schema);
        let sites = (root.all().into_iter())
            .map(|site| {
                (site.edges.iter())
                    .map(|edge| EdgeTally {
                        let_in: 0,
                        kept_out: 0,
                        kept_out_written_apart: 0,
                        without: compile(&without(schema, site, edge), &site.path),
                        matches: match edge {
                            Edge::Pattern(pattern) => Some(compile(
                                &json!({ "pattern": spelt_out(pattern) }),
                                &site.path,
                            )),
                            _ => None,
                        },
                    })
                    .collect()
            })
            .collect();
        let formats = (root.all().into_iter())
            .map(|site| {
                matches!(site.kind, Kind::Format(_)).then(|| FormatTally {
                    accepted: 0,
                    refused: 0,
                    without: compile(&without_format(schema, site), &site.path),
                })
            })
            .collect();
        Tally {
            accepted: 0,
            rejected: 0,
            unknown_alone: 0,
            args: root.fields().iter().map(|_| ArgTally::default()).collect(),
            sites,
            formats,
            shadowed: shadowed(root),
        }
    }

    /// Counts one object, `instance` as the validator judged it, with both sides' verdict.
    pub fn record(&mut self, root: &Schema, instance: &Value, verdict: &Verdict) {
        let properties = root.fields();
        let given = |arg: &Property| instance.get(&arg.name).is_some();
        let mut crossings: Vec<Vec<Crossings>> = (self.sites.iter())
            .map(|edges| vec![Crossings::default(); edges.len()])
            .collect();
        root.visit(instance, &mut |site, value| {
            for (index, edge) in site.edges.iter().enumerate() {
                let matches = self.sites[site.id][index].matches.as_ref();
                let at = crossing(site, edge, value, matches);
                let seen = &mut crossings[site.id][index];
                seen.last_in |= at.last_in;
                seen.first_out |= at.first_out;
                seen.written_apart |= at.written_apart;
            }
        });
        let mut strings = vec![false; self.formats.len()];
        root.visit(instance, &mut |site, value| {
            strings[site.id] |= matches!(site.kind, Kind::Format(_)) && value.is_string();
        });
        let formats = (self.formats.iter_mut().zip(strings))
            .filter_map(|(tally, string)| tally.as_mut().filter(|_| string));
        let edges = (self.sites.iter_mut().flatten()).zip(crossings.into_iter().flatten());
        match verdict {
            Verdict::Accepted => {
                self.accepted += 1;
                for (arg, tally) in properties.iter().zip(&mut self.args) {
                    tally.given += u32::from(given(arg));
                }
                for (tally, at) in edges {
                    tally.let_in += u32::from(at.last_in);
                }
                for tally in formats {
                    tally.accepted += 1;
                }
            }
            Verdict::Rejected(violations) => {
                self.rejected += 1;
                match blamed(properties, violations) {
                    Blame::UnknownNames => self.unknown_alone += 1,
                    Blame::Alone(index) => self.args[index].blamed_alone += 1,
                    Blame::Several => {}
                }
                for (tally, at) in edges {
                    if at.first_out && tally.without.is_valid(instance) {
                        tally.kept_out += 1;
                        tally.kept_out_written_apart += u32::from(at.written_apart);
                    }
                }
                for tally in formats {
                    tally.refused += u32::from(tally.without.is_valid(instance));
                }
            }
        }
    }

    /// Both answers, often: overall, for each argument (but an optional one that takes any
    /// value, which nothing rejects), for unknown names, and at each edge (accepted at the last
    /// value in, rejected at the first value out, where a JSON value can carry it, and for a
    /// unique list of numbers, rejected for two elements equal but written apart), and at each
    /// format: what falls short of it, each a line; `print` prints every count to stderr. The
    /// thresholds sit below what the generators produce on average.
    pub fn shortfalls(&self, name: &str, root: &Schema, print: bool) -> Vec<String> {
        let mut short = Vec::new();
        let total = self.accepted + self.rejected;
        if print {
            eprintln!(
                "{name}: {total} cases, {} accepted, {} rejected, {} for unknown names alone",
                self.accepted, self.rejected, self.unknown_alone
            );
        }
        let fifth = total / 5;
        if self.accepted < fifth {
            short.push(format!("{name}: only {} accepted", self.accepted));
        }
        if self.rejected < fifth {
            short.push(format!("{name}: only {} rejected", self.rejected));
        }
        // In an open object no name is unknown.
        let closed = matches!(&root.kind, Kind::Object(_, None));
        if closed && self.unknown_alone < 20 {
            short.push(format!(
                "{name}: unknown names alone: {}",
                self.unknown_alone
            ));
        }
        for (arg, tally) in root.fields().iter().zip(&self.args) {
            let arg_name = &arg.name;
            if print {
                eprintln!(
                    "  {arg_name}: accepted given {}; rejected alone {}",
                    tally.given, tally.blamed_alone
                );
            }
            if tally.given < 50 {
                short.push(format!(
                    "{name}.{arg_name}: accepted given: {}",
                    tally.given
                ));
            }
            let refusable = arg.required || !matches!(arg.schema.kind, Kind::Any(_));
            if refusable && tally.blamed_alone < 5 {
                short.push(format!(
                    "{name}.{arg_name}: rejected for it alone: {}",
                    tally.blamed_alone
                ));
            }
        }
        for site in root.all() {
            for (edge, counts) in site.edges.iter().zip(&self.sites[site.id]) {
                let path = if site.path.is_empty() {
                    "(arguments)"
                } else {
                    &site.path
                };
                let at = format!("{name}.{path}: {}", edge.keyword());
                let (last_in, first_out) = match edge {
                    Edge::Bound(bound) => (
                        format!(" {:?}", bound.last_in()),
                        format!(" {:?}", bound.first_out()),
                    ),
                    _ => (String::new(), String::new()),
                };
                let apart = match edge {
                    Edge::Unique => format!(" ({} written apart)", counts.kept_out_written_apart),
                    _ => String::new(),
                };
                if print {
                    eprintln!(
                        "    {at}: accepted at the last value in{last_in} {}, rejected at the first \
                     out{first_out} {}{apart}",
                        counts.let_in, counts.kept_out
                    );
                }
                // A long value is drawn rarely (see `generate::counts`): three will do.
                let long = matches!(edge, Edge::Bound(bound) if bound.is_long());
                let enough = if long { 3 } else { 10 };
                if counts.let_in < enough {
                    short.push(format!(
                        "{at}: accepted at the last value in{last_in}: {}",
                        counts.let_in
                    ));
                }
                let sendable = match edge {
                    Edge::Bound(bound) => bound.first_out().sendable(),
                    _ => true,
                };
                if counts.kept_out < 1 && sendable && !self.shadowed[site.id] {
                    short.push(format!(
                        "{at}: rejected at the first value out{first_out}, for it alone: {}",
                        counts.kept_out
                    ));
                }
                if let (Edge::Unique, Kind::List(list)) = (edge, &site.kind) {
                    let numbers = matches!(list.items.kind, Kind::Integer(_) | Kind::Float(..));
                    if numbers && counts.kept_out_written_apart < 1 {
                        short.push(format!(
                            "{at}: rejected for equal numbers written apart, like 1 and 1.0: {}",
                            counts.kept_out_written_apart
                        ));
                    }
                }
            }
            short.extend(self.format_shortfalls(name, site, print));
        }
        short
    }

    /// Both answers at `site`, if it is a format: a string accepted there, and one rejected
    /// for the format alone.
    fn format_shortfalls(&self, name: &str, site: &Schema, print: bool) -> Vec<String> {
        let mut short = Vec::new();
        let (Kind::Format(format), Some(counts)) = (&site.kind, &self.formats[site.id]) else {
            return short;
        };
        let at = format!("{name}.{}: format {}", site.path, format.name());
        if print {
            eprintln!(
                "    {at}: accepted {}, rejected for it alone {}",
                counts.accepted, counts.refused
            );
        }
        if counts.accepted < 10 {
            short.push(format!("{at}: accepted: {}", counts.accepted));
        }
        if counts.refused < 5 {
            short.push(format!("{at}: rejected for it alone: {}", counts.refused));
        }
        short
    }
}

/// Checks the oracle's model against the input schema it was read from: every rule the schema
/// states at each site is an edge the tally counts there, so that a model that misses a
/// keyword fails here rather than leave a rule unexercised. Exempt: a minimum count or length
/// of 0 (nothing lies below it), and a number's bound beside a tighter one on its side (an edge
/// on that side is enough; nothing can sit at the looser one alone).
fn every_rule_has_an_edge(root: &Schema, schema: &Value) {
    for site in root.all() {
        // `true`, an open object's other names' schema when they take any value: no rule.
        if schema.pointer(&site.pointer) == Some(&Value::Bool(true)) {
            continue;
        }
        let keywords = (schema.pointer(&site.pointer).and_then(Value::as_object))
            .unwrap_or_else(|| panic!("{}: no schema at {:?}", site.path, site.pointer));
        let bound = |keyword: &str| {
            (site.edges.iter()).any(|edge| matches!(edge, Edge::Bound(b) if b.keyword == keyword))
        };
        let side = |side: Side| {
            (site.edges.iter()).any(|edge| matches!(edge, Edge::Bound(b) if b.side == side))
        };
        let has = |wanted: &Edge| {
            (site.edges.iter())
                .any(|edge| std::mem::discriminant(edge) == std::mem::discriminant(wanted))
        };
        for (keyword, value) in keywords {
            let counted = match keyword.as_str() {
                "minLength" | "minItems" | "minProperties" if value == 0 => true,
                "minLength" | "maxLength" | "minItems" | "maxItems" | "minProperties"
                | "maxProperties" => bound(keyword),
                "minimum" | "exclusiveMinimum" => side(Side::Lower),
                "maximum" | "exclusiveMaximum" => side(Side::Upper),
                "uniqueItems" => value == false || has(&Edge::Unique),
                "pattern" => has(&Edge::Pattern(String::new())),
                "enum" => has(&Edge::Choice),
                "const" => has(&Edge::Const),
                "required" => (value.as_array().into_iter().flatten()).all(|name| {
                    (site.edges.iter())
                        .any(|edge| matches!(edge, Edge::Required(required) if name == required))
                }),
                "additionalProperties" => value != false || has(&Edge::Closed),
                "not" | "dependentRequired" => !site.together.is_empty(),
                // The type is the wrong-type values' business, and the others state no rule.
                "items" if value == false => bound(keyword),
                "type" | "format" | "description" | "default" | "examples" | "properties"
                | "items" | "prefixItems" | "anyOf" | "oneOf" => true,
                other => panic!("{}: the tally does not know the keyword {other}", site.path),
            };
            assert!(
                counted,
                "{}: the schema's {keyword} is no edge of the oracle's model: {}",
                site.path,
                Value::Object(keywords.clone())
            );
        }
    }
}

/// Which schemas, by id, lie inside a branch of an `anyOf` (see [`Tally::shadowed`]): a value
/// one branch keeps out at an edge, a later one may take (`Small(u8)` with `max = 10` before
/// `Any(f64)`), so that no object is rejected at that edge alone. That the value went to the
/// right branch the comparison of what the tool received checks instead (`11` is `Any(11.0)`,
/// never `Small(11)`).
fn shadowed(root: &Schema) -> Vec<bool> {
    let mut shadowed = vec![false; root.all().len()];
    for site in root.all() {
        if let Kind::Union(union) = &site.kind
            && !union.exclusive
        {
            for inside in union.branches.iter().flat_map(Schema::all) {
                shadowed[inside.id] = true;
            }
        }
    }
    shadowed
}

/// Whom a rejection's violations blame.
enum Blame {
    /// Only names the tool does not declare.
    UnknownNames,
    /// One argument (at its top, or anywhere inside it), by its index.
    Alone(usize),
    /// More than one, or an argument and an unknown name.
    Several,
}

/// Whom `violations` blame: a violation names its argument by its label (the wire name,
/// capitalised) or, inside it, by its path in wire names (`labels[2]`, `edits[1].oldText`,
/// `headers["A"]`, `edits[0]: 12 more names`); an unknown name by itself.
fn blamed(properties: &[Property], violations: &Violations) -> Blame {
    let blamed: Vec<Option<usize>> = (violations.iter())
        .map(|violation| {
            let unknown = violation.sentence.starts_with("Not an argument")
                || violation.sentence.starts_with("Not arguments");
            let argument = violation.argument.split(['[', '.', ':']).next();
            let index = (properties.iter()).position(|arg| {
                argument.is_some_and(|argument| arg.name.eq_ignore_ascii_case(argument))
            });
            index.filter(|_| !unknown)
        })
        .collect();
    // A broken group of the tool's arguments has no place, and blames several.
    if violations
        .iter()
        .any(|violation| violation.argument.is_empty())
    {
        return Blame::Several;
    }
    match blamed.as_slice() {
        all if all.iter().all(Option::is_none) => Blame::UnknownNames,
        [Some(index), rest @ ..] if rest.iter().all(|other| other == &Some(*index)) => {
            Blame::Alone(*index)
        }
        _ => Blame::Several,
    }
}
