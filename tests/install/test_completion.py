#!/usr/bin/python3
"""The completion scripts (kvplan completion bash|zsh|fish) and the man page (kvplan man) against
--help: every verb `kvplan --help` lists and every flag of each `kvplan VERB --help` completes. The
bash script is sourced into bash and asked (COMP_WORDS) as bash asks it; zsh and fish, when not
installed, are read as text (each verb's _arguments specs / complete lines).
Run: test_completion.py <kvplan>"""
import re
import shutil
import subprocess
import sys

KVPLAN = sys.argv[1]
failed = 0


def check(name, ok, detail=""):
    global failed
    if not ok:
        failed += 1
        print(f"FAIL {name}: {str(detail)[:400]}")


def out(*args):
    return subprocess.run([KVPLAN, *args], capture_output=True, text=True, check=True).stdout


top = out("--help")
verbs = re.findall(r"^  ([a-z]+)\s", top.split("SUBCOMMANDS:")[-1] if "SUBCOMMANDS:" in top else top, re.M)
check("verbs found in --help", len(verbs) >= 10 and "size" in verbs and "mcp" in verbs, verbs)
flags = {}
for v in verbs:
    h = out(v, "--help")
    # CLI11 option lines: "  -n,--tokens TOKENS  help" / "  --json  help"
    flags[v] = sorted(set(re.findall(r"(?:^|[ ,])(--?[A-Za-z][A-Za-z0-9_-]*)", "\n".join(
        line.split("  ", 2)[1] if line.startswith("  ") and len(line.split("  ", 2)) > 1 else ""
        for line in h.splitlines() if re.match(r"^\s+-", line)), re.M)))
    check(f"{v}: flags found in --help", "--help" in flags[v], flags[v])

bash, zsh, fish, man = (out("completion", "bash"), out("completion", "zsh"),
                         out("completion", "fish"), out("man"))


def bash_complete(words):
    script = bash + "\nCOMP_WORDS=(" + " ".join(f"'{w}'" for w in words) + f")\nCOMP_CWORD={len(words) - 1}\n" \
        "_kvplan\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n"
    return subprocess.run(["bash", "-c", script], capture_output=True, text=True).stdout.split()


got = bash_complete(["kvplan", ""])
check("bash: every verb", all(v in got for v in verbs), sorted(set(verbs) - set(got)))
for v in verbs:
    got = set(bash_complete(["kvplan", v, "-"]))
    check(f"bash {v}: every flag", all(f in got for f in flags[v]), sorted(set(flags[v]) - got))
# An option's prefix narrows to it.
check("bash: prefix", bash_complete(["kvplan", "size", "--tok"]) == ["--tokens"], bash_complete(["kvplan", "size", "--tok"]))

for v in verbs:
    block = re.search(r"^    " + v + r"\)\n(.*?);;", zsh, re.M | re.S)
    check(f"zsh {v}: a case", block is not None)
    if block:
        missing = [f for f in flags[v] if f"'{f}[" not in block.group(1)]
        check(f"zsh {v}: every flag", not missing, missing)
    check(f"zsh: verb {v}", f"'{v}:" in zsh)
    lines = [l for l in fish.splitlines() if f"__fish_seen_subcommand_from {v}'" in l]
    have = set()
    for l in lines:
        have |= {"--" + x for x in re.findall(r" -l (\S+)", l)} | {"-" + x for x in re.findall(r" -[so] (\S+)", l)}
    check(f"fish {v}: every flag", all(f in have for f in flags[v]), sorted(set(flags[v]) - have))
    check(f"fish: verb {v}", re.search(r"-a " + v + " ", fish) is not None)
    check(f"man: verb {v}", f'.SS "kvplan {v}"' in man)
for shell, path in (("zsh", "zsh"), ("fish", "fish")):
    exe = shutil.which(path)
    if exe:  # the script parses in the real shell
        r = subprocess.run([exe, "-n" if shell == "zsh" else "--no-execute", "-c",
                            (zsh if shell == "zsh" else fish)], capture_output=True, text=True)
        check(f"{shell} parses the script", r.returncode == 0, r.stderr)
check("man: header", man.startswith(".\\\"") and "\n.TH KVPLAN 1 " in man and ".SH EXIT STATUS" in man)
check("bad shell: exit 2", subprocess.run([KVPLAN, "completion", "tcsh"], capture_output=True).returncode == 2)
print(f"{'ok' if not failed else str(failed) + ' failed'}: completion for {len(verbs)} verbs, "
      f"{sum(len(f) for f in flags.values())} flags")
sys.exit(1 if failed else 0)
