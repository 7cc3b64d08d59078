// Checks on the packed tarball, as a user gets it (`npm pack`, then `npm install ./toolloop-*.tgz`).
// Run by the "package" suite of `npm test` (scripts/suites.mjs) after publint and attw;
// also runnable alone: node test/bundle/packed.mjs path/to/toolloop-x.y.z.tgz
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, posix, resolve } from "node:path";

const root = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

/** Each check is one test: returns { passed, failed, skipped } and prints one line per check. */
export async function checkPacked(file, { tmp = join(root, ".tmp"), env = process.env } = {}) {
  const tarball = resolve(file);
  const work = join(tmp, "packed-check");
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  execFileSync("tar", ["-xzf", tarball, "-C", work]);
  const pkgDir = join(work, "package");
  const manifest = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
  const files = listFiles(pkgDir);
  let passed = 0;
  let failed = 0;
  const check = async (name, fn) => {
    try {
      await fn();
      passed++;
      console.log(`  ok    ${name}`);
    } catch (err) {
      failed++;
      console.log(
        `  FAIL  ${name}\n        ${String(err?.message ?? err)
          .split("\n")
          .join("\n        ")}`,
      );
    }
  };
  const assert = (cond, message) => {
    if (!cond) throw new Error(message);
  };

  await check("the manifest runs nothing on install (no prepare/preinstall/install/postinstall)", () => {
    const scripts = Object.keys(manifest.scripts ?? {}).filter((s) => ["prepare", "preinstall", "install", "postinstall"].includes(s));
    assert(scripts.length === 0, `install-time scripts: ${scripts.join(", ")}`);
    assert(manifest.scripts?.prepack, "the build should run on prepack");
  });
  await check("LICENSE (MIT) and CHANGELOG.md are in the tarball", () => {
    assert(manifest.license === "MIT", `license is ${manifest.license}`);
    assert(files.includes("LICENSE") && /MIT License/.test(readFileSync(join(pkgDir, "LICENSE"), "utf8")), "LICENSE missing or not MIT");
    assert(files.includes("CHANGELOG.md"), "CHANGELOG.md missing");
  });
  await check("repository, homepage and keywords are set", () => {
    assert(typeof manifest.repository?.url === "string" && manifest.repository.url, "no repository.url");
    assert(typeof manifest.homepage === "string" && manifest.homepage, "no homepage");
    assert(Array.isArray(manifest.keywords) && manifest.keywords.length > 0, "no keywords");
  });
  await check("every dist/ script has a source map with the sources inlined", () => {
    const scripts = files.filter((f) => /^dist\/.*\.(js|cjs)$/.test(f));
    assert(scripts.length > 0, "no scripts in dist/");
    for (const f of scripts) {
      assert(files.includes(`${f}.map`), `${f}.map missing`);
      const map = JSON.parse(readFileSync(join(pkgDir, `${f}.map`), "utf8"));
      // An entry that only re-exports chunks (dist/http.cjs) maps no source of its own.
      const own = Array.isArray(map.sources) && map.sources.length > 0;
      assert(
        !own ||
          (Array.isArray(map.sourcesContent) && map.sourcesContent.length === map.sources.length && map.sourcesContent.every((s) => typeof s === "string")),
        `${f}.map has no sourcesContent`,
      );
      assert(readFileSync(join(pkgDir, f), "utf8").includes(`sourceMappingURL=${posix.basename(f)}.map`), `${f} does not point at its map`);
    }
  });
  await check("every relative import in the .d.ts files names a file in the tarball (deno check needs it)", () => {
    for (const f of files.filter((x) => /\.d\.c?ts$/.test(x))) {
      const text = readFileSync(join(pkgDir, f), "utf8");
      for (const m of text.matchAll(/from\s+['"](\.{1,2}\/[^'"]+)['"]/g)) {
        const target = posix.normalize(posix.join(posix.dirname(f), m[1]));
        assert(files.includes(target), `${f} imports ${m[1]}, which is not in the package`);
      }
    }
  });
  await check("every example with its own package.json depends on the clone (file:../..)", () => {
    for (const dir of readdirSync(join(root, "examples"))) {
      const file = join(root, "examples", dir, "package.json");
      if (!existsSync(file)) continue;
      const deps = JSON.parse(readFileSync(file, "utf8")).dependencies ?? {};
      assert(deps.toolloop === "file:../..", `examples/${dir}/package.json: toolloop is ${JSON.stringify(deps.toolloop)}`);
    }
  });

  // Installed the way the README says, every entry point loads in Node (import and require).
  const app = join(work, "app");
  let installed = false;
  await check("npm install ./toolloop-*.tgz into a fresh project works", () => {
    mkdirSync(app, { recursive: true });
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
    execFileSync("npm", ["install", tarball, "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"], { cwd: app, env, stdio: "pipe" });
    installed = existsSync(join(app, "node_modules", "toolloop", "package.json"));
    assert(installed, "node_modules/toolloop missing after install");
  });
  await check("every entry point imports and requires in Node from the installed tarball", () => {
    assert(installed, "not installed");
    const subpaths = Object.keys(manifest.exports).filter((k) => k !== "./package.json");
    const names = subpaths.map((k) => (k === "." ? "toolloop" : `toolloop/${k.slice(2)}`));
    const script = `import { createRequire } from "node:module";
const require = createRequire(import.meta.url);
for (const name of ${JSON.stringify(names)}) {
  const esm = await import(name);
  const cjs = require(name);
  if (Object.keys(esm).length === 0 || Object.keys(cjs).length === 0) throw new Error(name + " exports nothing");
}
const { createClient, tool } = await import("toolloop");
const { scriptedProvider } = await import("toolloop/testing");
if (typeof createClient !== "function" || typeof tool !== "function" || typeof scriptedProvider !== "function") throw new Error("missing API");`;
    writeFileSync(join(app, "load.mjs"), script);
    execFileSync(process.execPath, ["load.mjs"], { cwd: app, env, stdio: "pipe" });
  });
  await check("an app that bundles every entry point gets no bundler warning, also from a linked checkout (file:)", async () => {
    // From the unpacked package, not node_modules: esbuild keeps quiet inside node_modules, but an
    // app that links a checkout (the examples' file:../..) sees every warning.
    const { build } = await import("esbuild");
    for (const [k, target] of Object.entries(manifest.exports)) {
      const file = typeof target === "string" ? target : (target.import?.default ?? target.import ?? target.default);
      if (k === "./package.json" || typeof file !== "string") continue;
      const r = await build({
        stdin: { contents: `import * as m from ${JSON.stringify(join(pkgDir, file))}; console.log(Object.keys(m).length);`, resolveDir: pkgDir, loader: "js" },
        bundle: true,
        write: false,
        format: "esm",
        // claude-local spawns the CLI and node serves node:http: the Node-only entries.
        platform: k === "./claude-local" || k === "./node" ? "node" : "browser",
        external: Object.keys(manifest.dependencies ?? {}),
        logLevel: "silent",
      });
      assert(r.warnings.length === 0, `${k}: ${r.warnings.length} warnings, e.g. ${r.warnings[0]?.text}`);
    }
  });
  rmSync(work, { recursive: true, force: true });
  return { passed, failed, skipped: 0 };
}

function listFiles(dir, prefix = "") {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...listFiles(join(dir, e.name), rel));
    else out.push(rel);
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await checkPacked(process.argv[2]);
  console.log(`${r.passed} passed, ${r.failed} failed`);
  process.exit(r.failed ? 1 : 0);
}
