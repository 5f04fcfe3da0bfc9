# Shell completion (bash, zsh, fish) and the man page, written by the CLI itself from its verbs and
# option tables (cli/cmd_completion.cpp) after every build of kvplan_cli, and installed where the
# shells and man look (Debian's paths under PREFIX/share).
set(kvplan_share ${PROJECT_BINARY_DIR}/share)
set(kvplan_generated
  ${kvplan_share}/bash-completion/completions/kvplan
  ${kvplan_share}/zsh/site-functions/_kvplan
  ${kvplan_share}/fish/vendor_completions.d/kvplan.fish
  ${kvplan_share}/man/man1/kvplan.1)
add_custom_command(
  OUTPUT ${kvplan_generated}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${kvplan_share}/bash-completion/completions ${kvplan_share}/zsh/site-functions
          ${kvplan_share}/fish/vendor_completions.d ${kvplan_share}/man/man1
  COMMAND sh -c "\"$1\" completion bash > \"$2\" && \"$1\" completion zsh > \"$3\" && \"$1\" completion fish > \"$4\" && \"$1\" man > \"$5\""
          kvplan-completion $<TARGET_FILE:kvplan_cli> ${kvplan_generated}
  DEPENDS kvplan_cli
  COMMENT "Writing shell completion and the man page"
  VERBATIM)
add_custom_target(kvplan_completion ALL DEPENDS ${kvplan_generated})
install(FILES ${kvplan_share}/bash-completion/completions/kvplan DESTINATION share/bash-completion/completions)
install(FILES ${kvplan_share}/zsh/site-functions/_kvplan DESTINATION share/zsh/site-functions)
install(FILES ${kvplan_share}/fish/vendor_completions.d/kvplan.fish DESTINATION share/fish/vendor_completions.d)
install(FILES ${kvplan_share}/man/man1/kvplan.1 DESTINATION share/man/man1)
