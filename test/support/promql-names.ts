/**
 * Test helper: the metric names the shipped dashboard and alert rules refer to
 * (deploy/grafana/dashboard.json, deploy/prometheus/alerts.yml), and the names a scrape exposes,
 * so a suite can check every reference against what the services really serve.
 */

/** The project's metric prefixes, and the process metrics every service renders. */
const NAME = /(?<![\w:])((?:gateway|exchange|process|nodejs)_[A-Za-z0-9_:]*)(?=\s*[{[),]|\s|$)/g;

/** The metric names in one PromQL expression (string literals, e.g. label matchers, are skipped). */
export function metricNamesIn(expr: string): string[] {
  const code = expr.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""');
  return [...code.matchAll(NAME)].map((m) => m[1] as string);
}

/** The PromQL of a Grafana dashboard: every target's `expr` and every query variable's query. */
export function dashboardExprs(dashboard: unknown): string[] {
  const out: string[] = [];
  const visit = (node: unknown, key: string): void => {
    if (typeof node === 'string') {
      if (key === 'expr' || key === 'query' || key === 'definition') out.push(node);
      return;
    }
    if (Array.isArray(node)) return node.forEach((n) => visit(n, key));
    if (node && typeof node === 'object') for (const [k, v] of Object.entries(node)) visit(v, k);
  };
  visit(dashboard, '');
  return out;
}

/** The `expr:` of each rule of a Prometheus rule file: on its line, or the indented block under `expr: >-` / `|`. */
export function ruleExprs(yaml: string): string[] {
  const lines = yaml.split('\n');
  const out: string[] = [];
  lines.forEach((line, i) => {
    const m = /^(\s*)expr:\s*(.*)$/.exec(line);
    if (!m) return;
    const indent = (m[1] as string).length;
    const rest = (m[2] as string).trim();
    if (!/^[>|][-+]?$/.test(rest)) return void out.push(rest);
    const block: string[] = [];
    for (let j = i + 1; j < lines.length; j++) {
      const next = lines[j] as string;
      if (next.trim() !== '' && next.search(/\S/) <= indent) break;
      block.push(next.trim());
    }
    out.push(block.join(' '));
  });
  return out;
}

/**
 * The metric names a Prometheus text exposition serves: every sample's name, and every family
 * declared by `# TYPE` (a labelled counter with no sample yet is still served); a histogram or
 * summary family also stands for its `_bucket`, `_sum` and `_count` series.
 */
export function exposedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)/.exec(line);
    if (type) {
      const [, family, kind] = type as unknown as [string, string, string];
      names.add(family);
      if (kind === 'histogram' || kind === 'summary') for (const suffix of ['_bucket', '_sum', '_count']) names.add(family + suffix);
      continue;
    }
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]/.exec(line);
    if (sample) names.add(sample[1] as string);
  }
  return names;
}

/** The referenced names that no scrape exposes. */
export function unknownNames(referenced: Iterable<string>, exposed: ReadonlySet<string>): string[] {
  return [...new Set(referenced)].filter((n) => !exposed.has(n)).sort();
}
