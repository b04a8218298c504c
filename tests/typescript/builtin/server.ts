// read_file_in_skill and get_skill (toolproof's built-in contracts, from shared/seeds/000 and 001) written in
// TypeScript from the published artifacts alone: the contracts as `toolproof export --format contract` prints them
// and the MCP definitions of exports/mcp/all.json, run by toolproof's TypeScript runtime on the official SDK.
// `node server.js --skills DIR [--no-meta]`: with --no-meta the server sends no _meta["dev.toolproof/error"], and
// puts the error object in structuredContent instead, as the specification allows.
import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync, readSync, realpathSync, statSync } from "node:fs";
import { posix, relative, isAbsolute, join } from "node:path";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { Contract, ToolError, toMcp, unknownTool, type ContractData, type McpToolDefinition, type Tool } from "../runtime/index.js";

const args = process.argv.slice(2);
const skillsAt = args.indexOf("--skills");
if (skillsAt < 0 || args[skillsAt + 1] === undefined) throw new Error("usage: server.js --skills DIR [--no-meta]");
const SKILLS = args[skillsAt + 1] as string;
const META = !args.includes("--no-meta");
const MAX_SKILL_MD = 1024 * 1024;

const published = new URL("../../published/", import.meta.url) // beside build/;
const listed = JSON.parse(readFileSync(new URL("mcp.json", published), "utf-8")) as { tools: McpToolDefinition[] };

function contract(name: string): Contract<Record<string, string>, unknown, string> {
  const doc = JSON.parse(readFileSync(new URL(`${name}.json`, published), "utf-8")) as Omit<ContractData<string>, "definition">;
  const definition = listed.tools.find((tool) => tool.name === name);
  if (definition === undefined) throw new Error(`exports/mcp/all.json lists no ${name}`);
  return new Contract({ name, definition, input: doc.input, output: doc.output, errors: doc.errors, render: doc.render });
}

const errno = (exc: unknown): string | undefined => (exc as NodeJS.ErrnoException).code;
const inside = (root: string, path: string): boolean => {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
};

/** Open a regular file without blocking on a FIFO; its bytes, or the reason it is not a readable regular file. */
function readRegular(path: string): { bytes: Buffer; names: number } | "directory" | "FIFO" | "other" {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stat = fstatSync(fd);
    if (stat.isDirectory()) return "directory";
    if (stat.isFIFO()) return "FIFO";
    if (!stat.isFile()) return "other";
    const bytes = Buffer.alloc(stat.size);
    let read = 0;
    while (read < stat.size) {
      const n = readSync(fd, bytes, read, stat.size - read, read);
      if (n === 0) break;
      read += n;
    }
    return { bytes: bytes.subarray(0, read), names: stat.nlink };
  } finally {
    closeSync(fd);
  }
}

function getSkill(input: Record<string, string>): { skill_name: string; documentation: string } {
  const skill_name = input["skill_name"] ?? "";
  const refuse = (rule: string): never => {
    throw new ToolError("invalid_skill_name", { skill_name, rule });
  };
  if (skill_name.includes("/") || skill_name.includes("\\") || skill_name.includes("..")) {
    refuse("Skill names must not contain '/', '\\', or '..'");
  }
  if (skill_name === "") refuse("Skill names must not be empty");
  if (skill_name === ".") refuse("'.' names the skills folder itself, not a skill in it");
  if (skill_name.includes("\u0000")) refuse("Skill names must not contain NUL");
  const fail = (code: string, extra: Record<string, string> = {}): never => {
    throw new ToolError(code, { skill_name, ...extra });
  };
  const root = realpathSync(SKILLS);
  const folder = join(root, skill_name);
  let real: string;
  try {
    real = realpathSync(folder);
  } catch (exc) {
    return errno(exc) === "EACCES" ? fail("permission_denied") : fail("skill_not_found");
  }
  if (!inside(root, real)) fail("outside_skills_folder");
  if (!statSync(real).isDirectory()) fail("skill_not_found");
  for (const name of ["SKILL.MD", "SKILL.md"]) {
    let file: string;
    try {
      lstatSync(join(real, name));
      file = realpathSync(join(real, name));
    } catch (exc) {
      if (errno(exc) === "ENOENT") continue;
      return errno(exc) === "EACCES" ? fail("permission_denied") : fail("skill_md_not_found");
    }
    if (!inside(root, file)) fail("outside_skills_folder");
    let found: ReturnType<typeof readRegular>;
    try {
      const size = statSync(file);
      if (size.isFile() && size.size > MAX_SKILL_MD) fail("too_large");
      found = readRegular(file);
    } catch (exc) {
      if (exc instanceof ToolError) throw exc;
      return errno(exc) === "EACCES" ? fail("permission_denied") : fail("not_a_file");
    }
    if (typeof found === "string") return fail("not_a_file");
    if (found.names > 1) {
      fail("unreadable", { reason: `the file has ${found.names} names (hard links), and files with more than one are not read here` });
    }
    let documentation: string;
    try {
      documentation = new TextDecoder("utf-8", { fatal: true }).decode(found.bytes); // drops a BOM
    } catch {
      return fail("invalid_utf8");
    }
    return { skill_name, documentation };
  }
  return fail("skill_md_not_found");
}

function decoded(bytes: Buffer): { content: string; encoding: string } | null {
  if (bytes.includes(0)) return null; // binary
  try {
    return { content: new TextDecoder("utf-8", { fatal: true }).decode(bytes), encoding: "utf-8" };
  } catch {
    return { content: new TextDecoder("windows-1252").decode(bytes), encoding: "windows-1252" };
  }
}

function readFileInSkill(input: Record<string, string>): object {
  const skill_name = input["skill_name"] ?? "";
  const file_path = input["file_path"] ?? "";
  const params = { skill_name, file_path };
  const fail = (code: string, reason?: string): never => {
    throw new ToolError(code, reason === undefined ? params : { ...params, reason });
  };
  if (skill_name === "." || skill_name.includes("/") || skill_name.includes("\\") || skill_name.includes("..")) {
    fail("invalid_skill_name");
  }
  const root = realpathSync(SKILLS);
  let skill: string;
  try {
    skill = realpathSync(join(root, skill_name));
  } catch {
    return fail("skill_not_found");
  }
  if (!inside(root, skill) || !statSync(skill).isDirectory()) fail("skill_not_found");
  const normal = posix.normalize(file_path);
  if (file_path.startsWith("/") || file_path.startsWith("~") || file_path.includes("\\") || normal === ".." || normal.startsWith("../")) {
    fail("path_traversal");
  }
  let real: string;
  try {
    real = realpathSync(join(skill, normal));
  } catch (exc) {
    if (errno(exc) !== "EACCES") return fail("file_not_found");
    return fail("cannot_read", "permission denied on the skill's folder");
  }
  if (!inside(skill, real)) fail("path_traversal");
  let found: ReturnType<typeof readRegular>;
  try {
    found = readRegular(real);
  } catch (exc) {
    return errno(exc) === "EACCES" ? fail("cannot_read", "permission denied") : fail("file_not_found");
  }
  if (typeof found === "string") {
    return fail("cannot_read", `the path is ${found === "directory" ? "a directory" : found === "FIFO" ? "a FIFO" : "not a file"}, not a regular file`);
  }
  if (found.names > 1) {
    fail("cannot_read", `the file has ${found.names} names (hard links), and files with more than one are not read here`);
  }
  const text = decoded(found.bytes);
  if (text === null) return fail("cannot_read", "the file is binary, not text");
  return { success: true, skill_name, file_path, ...text, size_bytes: found.bytes.length };
}

const tools: Tool[] = [contract("get_skill").bind(getSkill), contract("read_file_in_skill").bind(readFileInSkill)];

const server = new Server({ name: "skills-in-typescript", version: "0.1.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: tools.map((tool) => structuredClone(tool.contract.definition) as McpTool),
}));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const tool = tools.find((candidate) => candidate.name === request.params.name);
  if (tool === undefined) return unknownTool(request.params.name, tools);
  const result = await tool.call(request.params.arguments ?? {});
  const answer = toMcp(result);
  if (META) return answer;
  const { _meta: _, ...bare } = answer;
  return result.error?.output === undefined ? bare : { ...bare, structuredContent: result.error.output };
});
await server.connect(new StdioServerTransport());
