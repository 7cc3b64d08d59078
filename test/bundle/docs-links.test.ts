// Every relative link in the documentation resolves: README.md, DESIGN.md, docs/**/*.md, each
// example's README and bench/README.md. A link's file (or folder) must exist in the repository, and its
// #anchor must name a heading of the markdown file it points at, slugged as GitHub does
// (lower-cased; punctuation and symbols dropped, letters, digits, marks, `_` and `-` kept; each
// space a `-`; a repeated heading gets `-1`, `-2`, …). Links inside code (fenced blocks and
// `inline code`) are not links; absolute URLs (https:, mailto:) are not checked.
// A failure names the markdown file and line of the link.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative, sep } from "node:path";
import { expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");

function markdownFiles(): string[] {
  const docs = readdirSync(join(root, "docs"), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f.split(sep).join("/")}`);
  const examples = readdirSync(join(root, "examples"), { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(root, "examples", e.name, "README.md")))
    .map((e) => `examples/${e.name}/README.md`);
  return ["README.md", "DESIGN.md", "bench/README.md", ...docs.sort(), ...examples.sort()];
}

/** The markdown's lines outside fenced code blocks, with their 1-based line numbers. */
function proseLines(markdown: string): { n: number; text: string }[] {
  const out: { n: number; text: string }[] = [];
  let fence: string | undefined;
  markdown.split("\n").forEach((text, i) => {
    const open = /^\s*(`{3,}|~{3,})/.exec(text);
    if (fence) {
      if (open && open[1]![0] === fence[0] && open[1]!.length >= fence.length && text.trim() === open[1]) fence = undefined;
    } else if (open) fence = open[1];
    else out.push({ n: i + 1, text });
  });
  return out;
}

/** GitHub's heading anchor for a heading's text. */
function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1") // a link in a heading: its text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

const anchorCache = new Map<string, Set<string>>();
/** Every anchor GitHub makes for the headings of one markdown file. */
function anchorsOf(file: string): Set<string> {
  let anchors = anchorCache.get(file);
  if (anchors) return anchors;
  anchors = new Set();
  const seen = new Map<string, number>();
  for (const { text } of proseLines(readFileSync(file, "utf8"))) {
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text);
    if (!h) continue;
    const base = slug(h[1]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  anchorCache.set(file, anchors);
  return anchors;
}

/** The link targets on one line of prose: inline links and images, `[text](target "title")`. */
function linksOn(text: string): string[] {
  const prose = text.replace(/<!--.*?-->/g, "").replace(/(`+)(?:(?!\1).)+\1/g, (code) => "x".repeat(code.length));
  return [...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
}

it("the slug follows GitHub's rules", () => {
  expect(slug("Writing your own adapter: `toolloop/http`")).toBe("writing-your-own-adapter-toolloophttp");
  expect(slug("The loop's rules")).toBe("the-loops-rules");
  expect(slug("MCP server on Cloudflare Workers — `examples/mcp-worker/`")).toBe("mcp-server-on-cloudflare-workers--examplesmcp-worker");
  expect(slug("Web search: the reserved `web_search`, or a tool you own (`toolloop/tavily`)")).toBe(
    "web-search-the-reserved-web_search-or-a-tool-you-own-toollooptavily",
  );
});

it("every relative link and #anchor in README.md, DESIGN.md, docs/, the examples' and the bench's READMEs resolves", () => {
  const files = markdownFiles();
  expect(files).toContain("docs/README.md");
  const problems: string[] = [];
  let checked = 0;
  for (const file of files) {
    const path = join(root, file);
    for (const { n, text } of proseLines(readFileSync(path, "utf8"))) {
      for (const target of linksOn(text)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
        checked++;
        const hash = target.indexOf("#");
        const linkPath = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
        const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
        const resolved = linkPath ? normalize(join(linkPath.startsWith("/") ? root : dirname(path), linkPath)) : path;
        const where = `${file}:${n}: ${target}`;
        if (relative(root, resolved).startsWith("..")) problems.push(`${where}: points outside the repository`);
        else if (!existsSync(resolved)) problems.push(`${where}: ${relative(root, resolved).split(sep).join("/")} does not exist`);
        else if (anchor !== undefined) {
          if (statSync(resolved).isDirectory() || !resolved.endsWith(".md")) problems.push(`${where}: an anchor on a file that is not markdown`);
          else if (!anchorsOf(resolved).has(anchor))
            problems.push(`${where}: no heading in ${relative(root, resolved).split(sep).join("/")} has the anchor #${anchor}`);
        }
      }
    }
  }
  expect(problems.join("\n")).toBe("");
  expect(checked).toBeGreaterThan(20);
});
