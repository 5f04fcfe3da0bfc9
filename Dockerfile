# kvplan as a container image: `docker build -t kvplan .` then `docker run --rm kvplan size Qwen/Qwen3-0.6B`.
# Two stages on Debian stable (12, bookworm, what CI tests): the first builds the CLI as one static
# executable (-DKVPLAN_STATIC=ON), the second holds that file, its man page and nothing else (no
# compiler, no libraries), and runs as an unprivileged user. The GitHub Action (action.yml) runs it.
ARG DEBIAN=bookworm

FROM debian:${DEBIAN}-slim AS build
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      cmake g++ make nlohmann-json3-dev libcli11-dev libyaml-cpp-dev >/dev/null \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN cmake -S . -B /build -DCMAKE_BUILD_TYPE=Release -DKVPLAN_STATIC=ON -DKVPLAN_BUILD_TESTS=OFF \
      -DKVPLAN_BUILD_PYTHON=OFF -DKVPLAN_BUILD_RUNTIME=OFF -DKVPLAN_BUILD_EXAMPLES=OFF -DKVPLAN_BUILD_BENCH=OFF >/dev/null \
 && cmake --build /build -j"$(nproc)" --target kvplan_cli kvplan_completion >/dev/null \
 && /build/bin/kvplan size Qwen/Qwen3-0.6B --tokens 40960 >/dev/null

FROM debian:${DEBIAN}-slim
COPY --from=build /build/bin/kvplan /usr/local/bin/kvplan
COPY --from=build /build/share/man/man1/kvplan.1 /usr/local/share/man/man1/kvplan.1
RUN useradd --uid 10001 --create-home --shell /usr/sbin/nologin kvplan
USER kvplan
WORKDIR /work
ENTRYPOINT ["kvplan"]
CMD ["--help"]
