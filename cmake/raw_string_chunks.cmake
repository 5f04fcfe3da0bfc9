# kvplan_raw_string_chunks(OUT TEXT): TEXT as adjacent C++ raw string literals of at most 8000
# characters each (some compilers limit one literal's length). Used to embed JSON data files.
function(kvplan_raw_string_chunks out text)
  string(LENGTH "${text}" len)
  set(chunks "")
  set(pos 0)
  while(pos LESS len)
    string(SUBSTRING "${text}" ${pos} 8000 piece)
    string(APPEND chunks "R\"kvplan_json(${piece})kvplan_json\"\n")
    math(EXPR pos "${pos} + 8000")
  endwhile()
  set(${out} "${chunks}" PARENT_SCOPE)
endfunction()
